// One whole frame of the UI: menus, the tiled layout of the registry's panels, dialogs, shortcuts.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

// Between ImGui::NewFrame and ImGui::Render.
void draw_app(AppState& state, Services& services);

}  // namespace attnlab::gui
