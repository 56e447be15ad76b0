// The in-app file dialog (no native dialogs on a bare X server): opened by setting
// AppState::file_dialog's purpose and request_open, drawn every frame.
#pragma once

#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_file_dialog(AppState& state, Services& services);
// Opens the dialog on the next frame to choose a file for `purpose` (File menu, Ctrl+O, Ctrl+S).
void open_file_dialog(AppState& state, FilePurpose purpose);

}  // namespace attnlab::gui
