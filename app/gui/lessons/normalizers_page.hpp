// The normalizers lesson's page (normalizers_page.cpp): softmax, sparsemax, sigmoid and hardmax on
// the same logits, each one a click from the pipeline. No UI state of its own.
#pragma once

#include "engine/lessons/normalizers.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_normalizers_page(const PageInputs& in, const NormalizersNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): a row's weights under two normalizers.

}  // namespace attnlab::gui
