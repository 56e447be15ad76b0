// The session: the document, view settings and recent files saved on exit and restored at start,
// under $XDG_CONFIG_HOME/attnlab (or ~/.config/attnlab), next to ImGui's imgui.ini.
#pragma once

#include "gui/persistence/session_file.hpp"  // the file's text: session_json, parse_session
#include "gui/shell/app_state.hpp"

#include <filesystem>

namespace attnlab::gui {

// $XDG_CONFIG_HOME/attnlab, else $HOME/.config/attnlab; empty when neither variable is set.
std::filesystem::path config_dir();

// Writes <dir>/session.json atomically. Throws InputError when it cannot be written.
void save_session(const AppState& state, const WindowGeometry& window, const std::filesystem::path& dir);
// Restores what <dir>/session.json holds; returns false when there is none or it cannot be read
// (a broken session never stops the app from starting): the document and view are then untouched
// and state.error holds the sentence saying why.
bool restore_session(AppState& state, WindowGeometry& window, const std::filesystem::path& dir);

}  // namespace attnlab::gui
