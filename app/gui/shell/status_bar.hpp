// The status bar: backend, last recompute time, frame time, sizes, and above them the last error in place.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

#include <string>
#include <vector>

namespace attnlab::gui {

// What the bar holds this frame, worked out once before the panels are laid out: an error gets
// lines of its own above the usual line, wrapped to the window (at most three; the tooltip holds
// the rest). At the end of that line it was cut at the window's edge, mid-sentence even at 1280
// pixels. `height` is what the panels leave for the bar, `line_h` being its usual line's.
struct StatusBarLayout {
  std::vector<std::string> error_lines;
  float error_line_h = 0;
  float height = 0;
};
StatusBarLayout status_bar_layout(const AppState& state, const Services& services, float line_h);
void draw_status_bar(AppState& state, Services& services, const StatusBarLayout& layout);

}  // namespace attnlab::gui
