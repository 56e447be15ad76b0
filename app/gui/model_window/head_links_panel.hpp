// "Which heads link these two tokens?" in the Model window (docs/MODELS.md, "The Model window"):
// under the chips, what to click, then the top heads by their weight from the query token to the
// key token (each a button choosing that head), how many the grid outlines, Save CSV… and Clear.
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Save CSV… asks for a file (ChooseFile: the file dialog then calls save_link_ranking).
void draw_head_links_panel(const ViewContext& ctx, ModelUi& m, Commands& out);

}  // namespace attnlab::gui
