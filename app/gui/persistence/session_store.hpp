// The session: the document, view settings and recent files saved on exit and restored at start,
// under $XDG_CONFIG_HOME/attnlab (or ~/.config/attnlab), next to ImGui's imgui.ini. The shell says
// what goes into it and what comes back out (the window's start and end, shell/main_window.cpp).
#pragma once

#include "gui/persistence/session_file.hpp"  // the file's text: session_json, parse_session

#include <filesystem>
#include <optional>

namespace attnlab::gui {

// $XDG_CONFIG_HOME/attnlab, else $HOME/.config/attnlab; empty when neither variable is set.
std::filesystem::path config_dir();

// Writes <dir>/session.json atomically. Throws InputError when it cannot be written.
void save_session(const SessionData& session, const std::filesystem::path& dir);
// What <dir>/session.json holds, or nothing when there is none (or no folder). Throws InputError
// when it cannot be read: a broken session never stops the app from starting, so the caller says
// why and starts without it.
std::optional<SessionData> read_session(const std::filesystem::path& dir);

}  // namespace attnlab::gui
