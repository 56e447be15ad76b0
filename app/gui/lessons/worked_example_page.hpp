// The worked examples' page (worked_example_page.cpp): one row of the weights done by hand. The row
// is the lab's selected cell's (SelectCell), so it has no UI state of its own.
#pragma once

#include "engine/lessons/worked_example.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_worked_example_page(const PageInputs& in, const WorkedExampleNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the weights and the output of a row, and which
// key a row attends to most.

}  // namespace attnlab::gui
