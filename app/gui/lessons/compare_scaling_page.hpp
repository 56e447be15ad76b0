// The scaled-vs-unscaled lesson's page (compare_scaling_page.cpp): the same scenario with and without
// ÷√d_k, in two columns. No UI state of its own.
#pragma once

#include "engine/lessons/compare_scaling.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_compare_scaling_page(const PageInputs& in, const CompareScalingNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the logits and weights of a row with and
// without ÷√d_k.

}  // namespace attnlab::gui
