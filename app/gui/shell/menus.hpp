// The File, Edit, View and Help menus: their items, between BeginMenu and EndMenu.
#pragma once

#include "gui/shell/app_state.hpp"

namespace attnlab::gui {

struct Services;  // state/services.hpp

void draw_file_menu(AppState& state, Services& services);
void draw_edit_menu(AppState& state, Services& services);
void draw_view_menu(AppState& state, Services& services);
void draw_help_menu(AppState& state, Services& services);

}  // namespace attnlab::gui
