// Keyboard shortcuts: one table, used both to handle keys and to list them in the Help window.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

#include <vector>

namespace attnlab::gui {

struct Shortcut {
  const char* keys;  // as shown in the Help window
  const char* what;
};
const std::vector<Shortcut>& shortcut_list();
// Handled once per frame when no text field has the keyboard.
void handle_shortcuts(AppState& state, Services& services);

}  // namespace attnlab::gui
