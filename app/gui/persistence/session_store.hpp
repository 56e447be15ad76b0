// The session: the document, view settings and recent files saved on exit and restored at start,
// under $XDG_CONFIG_HOME/attnlab (or ~/.config/attnlab), next to ImGui's imgui.ini. The shell says
// what goes into it and what comes back out (shell/session.hpp).
#pragma once

#include "gui/persistence/session_file.hpp"  // the file's text: session_json, parse_session

#include <filesystem>
#include <optional>

namespace attnlab::gui {

// $XDG_CONFIG_HOME/attnlab, else $HOME/.config/attnlab; empty when neither variable is set.
std::filesystem::path config_dir();

// Writes <dir>/session.json atomically. Throws InputError when it cannot be written.
void save_session(const SessionData& session, const std::filesystem::path& dir);
// What <dir>/session.json holds; nothing when there is none (or no `dir`). Throws when it cannot be
// read (InputError naming the file and field, or the file system's error).
std::optional<SessionData> read_session(const std::filesystem::path& dir);

}  // namespace attnlab::gui
