// The app's session: what of the whole state the shell saves on exit and restores at start (the
// file itself: persistence/session_store.hpp).
#pragma once

#include "gui/persistence/session_store.hpp"
#include "gui/shell/app_state.hpp"

#include <filesystem>

namespace attnlab::gui {

// The document, its file, the view settings, the recent files and the window's size, written to
// <dir>/session.json. Throws InputError when it cannot be written.
void save_session(const AppState& state, const WindowGeometry& window, const std::filesystem::path& dir);
// Restores what <dir>/session.json holds; returns false when there is none or it cannot be read
// (a broken session never stops the app from starting): the document and view are then untouched
// and state.error holds the sentence saying why.
bool restore_session(AppState& state, WindowGeometry& window, const std::filesystem::path& dir);

}  // namespace attnlab::gui
