// The rope lesson's page (rope_page.cpp): the scores with RoPE and shifted, one q and k at every pair
// of positions, each pair's frequency, the decay with distance. In presenter mode the maps and the
// frequencies take turns, chosen above them (side by side, the maps were 90 to 120 px on a
// projector, with labels of 7 to 10).
#pragma once

#include "engine/lessons/rope.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

struct RopeUi {
  bool frequencies = false;  // presenter mode: the frequencies and the decay shown, not the maps
};

void draw_rope_page(const PageInputs& in, const RopeNumbers* numbers, RopeUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): a rotated q·k at two positions, and why it
// depends only on their distance.

}  // namespace attnlab::gui
