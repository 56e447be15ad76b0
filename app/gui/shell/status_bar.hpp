// The status bar: backend, last recompute time, frame time, sizes, and above them the last error in place.
#pragma once

#include "gui/state/view_context.hpp"

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
StatusBarLayout status_bar_layout(const ViewContext& ctx, const std::string& error, float line_h);

// What the bar says besides what every view reads: the shell's own sentences and figures.
struct StatusLine {
  const std::string& error;          // why the last edit, file or computation was refused
  const std::string& notice;         // what was just done
  const std::string& scenario_path;  // the document's file, else its title is shown
  float frame_ms = 0;                // the last frame's time
  bool inputs_hidden = false;        // the inputs column is folded away: say how to get it back
};
void draw_status_bar(const ViewContext& ctx, const StatusLine& line, const StatusBarLayout& layout);

}  // namespace attnlab::gui
