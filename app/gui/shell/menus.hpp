// The File, Edit, View and Help menus: their items, between BeginMenu and EndMenu. Each reads what it
// shows and hands on what was chosen as commands; the View menu changes the view settings itself,
// since they are its own business (the ImGui style follows them by itself, frame_layout.cpp).
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/document.hpp"
#include "gui/state/view_context.hpp"
#include "gui/state/view_settings.hpp"

#include <string>
#include <vector>

namespace attnlab::gui {

// Files: open, save (to `scenario_path`, else asking where), matrices, exports, the window's
// screenshot, the recent files, a share link and Quit where the platform has them.
void draw_file_menu(const ViewContext& ctx, const std::string& scenario_path, const std::vector<std::string>& recent_files,
                    Commands& out);
// Undo and redo, named after the action they revert or replay.
void draw_edit_menu(const History& history, Commands& out);
// Presenter mode, the theme, numbers in cells, the colormaps and the floating windows, changed in
// `view`; the inputs column (`inputs_hidden`: folded by the user or by presenter mode) through
// ToggleInputsColumn.
void draw_view_menu(ViewSettings& view, bool inputs_hidden, Commands& out);
void draw_help_menu(Commands& out);

}  // namespace attnlab::gui
