// The classroom walk-through drawn in the "Lesson view" window (walkthrough_view.cpp): the step's
// inputs on the left, what it produced on the right with the cells that changed outlined, the
// formula with today's numbers above; and its keys.
#pragma once

#include "gui/lessons/lesson_matrix.hpp"
#include "gui/lessons/lessons_ui.hpp"

namespace attnlab::gui {

// Draws the step of the shown result; Back, Next, Leave and a click on a step move `walk`. The
// step's inputs are listed (LessonMapsListed) for the layout record and the tests.
void draw_walkthrough_view(const MapCanvas& canvas, WalkthroughUi& walk);
// Space / → / PageDown forward, ← / PageUp back, Esc leaves; only while the walk-through is on and
// no text field has the keyboard.
void handle_walk_keys(WalkthroughUi& walk);

}  // namespace attnlab::gui
