// The panel and menu registry. Adding a panel is one file in panels/ with a draw function
// (declared in panels/panels.hpp) plus one line in panel_registry.cpp's list; the same for a menu.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

#include <vector>

namespace attnlab::gui {

// Where the host lays a panel out.
enum class Slot {
  Left,    // the inputs column, one collapsing section each
  Main,    // the big area (the pipeline); several become tabs
  Bottom,  // under the main area, as tabs (explain, saturation, ...)
  Window,  // its own window, opened from the View menu (help, dialogs)
};

using DrawFn = void (*)(AppState&, Services&);

struct PanelInfo {
  const char* name;
  Slot slot;
  DrawFn draw;
};

struct MenuInfo {
  const char* name;
  DrawFn draw;  // draws the menu's items (between BeginMenu and EndMenu)
};

const std::vector<PanelInfo>& panel_list();
const std::vector<MenuInfo>& menu_list();

}  // namespace attnlab::gui
