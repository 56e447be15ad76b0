// The panel and menu registry. Adding a panel is one file with a draw function plus one line in
// panel_registry.cpp's list; the same for a menu.
#pragma once

#include "gui/state/app_state.hpp"
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

// Floating (Slot::Window) panels are shown while this is true.
bool& window_open(AppState& state, const char* name);

// One whole frame of the UI: menus, layout, panels, dialogs, shortcuts. Between NewFrame and Render.
void draw_app(AppState& state, Services& services);

// The panels (one file each).
void draw_lesson_panel(AppState& state, Services& services);
void draw_inputs_panel(AppState& state, Services& services);
void draw_controls_panel(AppState& state, Services& services);
void draw_pipeline_panel(AppState& state, Services& services);
// streamed_pipeline_panel.cpp: a streaming run's progress bar and Cancel (true when there is nothing else to
// draw yet), and the pipeline of a streamed result (no n × m stages: downsampled weights, output).
bool draw_compute_progress(AppState& state, Services& services);
void draw_streaming_view(AppState& state, Services& services);
void draw_lesson_view_panel(AppState& state, Services& services);  // lesson_view_panel.cpp
void draw_explain_panel(AppState& state, Services& services);
void draw_saturation_panel(AppState& state, Services& services);
void draw_scaling_panel(AppState& state, Services& services);
void draw_help_window(AppState& state, Services& services);
void draw_export_dialog(AppState& state, Services& services);
void draw_status_bar(AppState& state, Services& services, float height);
void draw_file_dialog(AppState& state, Services& services);
// "Restore unsaved work?" after a crash (recovery_store.hpp); Enter restores, Esc discards.
void draw_recovery_prompt(AppState& state, Services& services);

// The menus (menus.cpp, lessons_menu.cpp).
void draw_file_menu(AppState& state, Services& services);
void draw_edit_menu(AppState& state, Services& services);
void draw_view_menu(AppState& state, Services& services);
void draw_lessons_menu(AppState& state, Services& services);
void draw_help_menu(AppState& state, Services& services);
void draw_backend_menu(AppState& state, Services& services);

// Switches the compute backend (backend_menu.cpp). GPU needs the GL 4.3 context current on this
// thread (the window's); when it cannot be had the old backend stays and state.error says why
// (Gpu) or the CPU is used with a notice (Auto).
void select_backend(AppState& state, Services& services, BackendChoice choice);

// Keyboard shortcuts (shortcuts.cpp): handled once per frame when no text field has the keyboard.
struct Shortcut {
  const char* keys;  // as shown in the Help window
  const char* what;
};
const std::vector<Shortcut>& shortcut_list();
void handle_shortcuts(AppState& state, Services& services);

}  // namespace attnlab::gui
