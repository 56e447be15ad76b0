// The in-app file dialog (no native dialogs on a bare X server): opened by setting
// AppState::file_dialog's purpose and request_open, drawn every frame.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_file_dialog(AppState& state, Services& services);
// Opens the dialog on the next frame to choose a file for `purpose` (File menu, Ctrl+O, Ctrl+S).
// A platform with its own picker (PlatformTraits::file_picker: the browser) is asked instead, and
// there a save becomes a download.
void open_file_dialog(AppState& state, FilePurpose purpose);
// Does what `purpose` says with the chosen file (the dialog's Open/Save, the browser's picker).
// Returns why it was refused, empty when done (the dialog stays open to say so).
std::string use_chosen_file(AppState& state, FilePurpose purpose, const std::string& path);

}  // namespace attnlab::gui
