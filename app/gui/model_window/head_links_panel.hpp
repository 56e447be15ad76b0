// "Which heads link these two tokens?" in the Model window (docs/MODELS.md, "The Model window"):
// under the chips, what to click, then the top heads by their weight from the query token to the
// key token (each a button choosing that head), how many the grid outlines, Save CSV… and Clear.
#pragma once

#include "gui/shell/app_state.hpp"

namespace attnlab::gui {

void draw_head_links_panel(AppState& state);

}  // namespace attnlab::gui
