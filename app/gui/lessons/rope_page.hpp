// The rope lesson's page (rope_page.cpp): the scores with RoPE and shifted, one q and k at every pair
// of positions, each pair's frequency, the decay with distance. No UI state of its own.
#pragma once

#include "engine/lessons/rope.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_rope_page(const PageInputs& in, const RopeNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): a rotated q·k at two positions, and why it
// depends only on their distance.

}  // namespace attnlab::gui
