// The status bar: backend, last recompute time, frame time, sizes, and above them the last error in place.
#pragma once

#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

// An error gets lines of its own above the bar's usual one, wrapped to the window's `width` (at
// most three; the tooltip holds the rest): at the end of that line it was cut at the window's edge,
// mid-sentence even at 1280 pixels. The height to leave for the bar, `line_h` for its usual line.
float status_bar_height(const AppState& state, const Services& services, float width, float line_h);
void draw_status_bar(AppState& state, Services& services, float height);

}  // namespace attnlab::gui
