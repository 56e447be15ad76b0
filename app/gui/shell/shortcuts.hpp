// Keyboard shortcuts: one table, used both to handle keys and to list them in the Help window; which
// keys were pressed (read from ImGui), and what each press means (pure: tests ask it without ImGui).
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

#include <vector>

namespace attnlab::gui {

struct Shortcut {
  const char* keys;  // as shown in the Help window
  const char* what;
};
const std::vector<Shortcut>& shortcut_list();

// A key pressed this frame (a GLFW key code) with Ctrl and Shift as they were.
struct KeyPress {
  int key = 0;
  bool ctrl = false;
  bool shift = false;
};
// The shortcut keys pressed this frame, in the order they are handled: none while a modal question
// is up (`modal`: no key may change the document behind it); with Ctrl, the first of undo, redo,
// open and save; else none while a text field has the keyboard or Alt or Super is down. F5 and P
// are one key.
std::vector<KeyPress> shortcut_presses(bool modal);
// What one press means for the document and view it reads: its commands, none for a key that
// means nothing. The shell applies each press's commands before it asks about the next.
Commands shortcut_commands(const ViewContext& ctx, const KeyPress& press);

}  // namespace attnlab::gui
