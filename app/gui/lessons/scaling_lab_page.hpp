// The scaling-lab lesson's page (scaling_lab_page.cpp): Exercise 2.3.1 in small, this draw both ways
// and a seeded sweep, with the way into the Scaling lab. No UI state of its own.
#pragma once

#include "engine/lessons/scaling_lab.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_scaling_lab_page(const PageInputs& in, const ScalingLabNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the standard deviation of q·k for a d_k,
// before and after scaling.

}  // namespace attnlab::gui
