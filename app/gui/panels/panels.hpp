// The panels the registry (shell/panel_registry.cpp) lays out, one file each in this folder: each
// draws from AppState and changes the document only through actions (state/edits.hpp).
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_lesson_panel(AppState& state, Services& services);       // lesson_text_panel.cpp
void draw_lesson_view_panel(AppState& state, Services& services);  // lesson_view_panel.cpp

}  // namespace attnlab::gui
