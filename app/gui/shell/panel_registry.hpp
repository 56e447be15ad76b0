// The panel and menu registry. Adding a panel is its view (in its feature's folder) plus one line in
// panel_registry.cpp's list and one case in draw_panel, which hands the view the parts of the state
// it reads and its own UI state, and applies the commands it returns. The same for a menu.
#pragma once

#include "gui/state/services.hpp"

#include <vector>

namespace attnlab::gui {

struct AppState;  // app_state.hpp: the registry hands its parts to each view

// Where the host lays a panel out.
enum class Slot {
  Left,    // the inputs column, one collapsing section each
  Main,    // the big area (the pipeline); several become tabs
  Bottom,  // under the main area, as tabs (explain, saturation, ...)
  Window,  // its own window, opened from the View menu (help, dialogs)
};

enum class Panel { Controls, Inputs, Pipeline, ScalingLab, Lesson, LessonView, Explain, Saturation, Model, Training, Help, Export };
enum class Menu { File, Edit, View, Lessons, Backend, Help };

struct PanelInfo {
  const char* name;
  Slot slot;
  Panel panel;
};

struct MenuInfo {
  const char* name;
  Menu menu;
};

const std::vector<PanelInfo>& panel_list();
const std::vector<MenuInfo>& menu_list();

// Draws a panel (its content, inside the window or tab the host made) and applies what it asked for.
void draw_panel(AppState& state, Services& services, Panel panel);
// Draws a menu's items (between BeginMenu and EndMenu) and applies what was chosen.
void draw_menu(AppState& state, Services& services, Menu menu);
// The keyboard's shortcuts this frame (shortcuts.hpp), each key's commands applied before the next
// key is read, as the keys were handled one after another.
void handle_shortcuts(AppState& state, Services& services);

}  // namespace attnlab::gui
