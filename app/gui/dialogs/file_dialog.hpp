// The in-app file dialog (no native dialogs on a bare X server): a folder listing, a file name field
// and the file types that fit its purpose, as a modal. What the chosen file is used for is the app's
// (UseFile); a platform with its own picker (the browser's) is asked instead (PickFile).
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

#include <string>

namespace attnlab::gui {

// Which file the dialog is choosing, and for what.
struct FileDialogState {
  FilePurpose purpose = FilePurpose::None;  // None: no file is being chosen (the modal closes)
  bool request_open = false;  // the popup opens on the next frame
  std::string directory;
  std::string file_name;
  std::string error;
  std::string card_lesson;  // SaveLessonCard: the built-in lesson whose reference card is written
};

// Asks for a file for `purpose` when the dialog is next drawn (the ChooseFile command).
void open_file_dialog(FileDialogState& d, FilePurpose purpose);

// The dialog, drawn as ImGui's Begin/End pairs are: begin_file_dialog opens a requested dialog (in
// the folder of the scenario's file, `scenario_path`, when it has none; a save proposes that file's
// name) and draws its listing and buttons; a chosen file is UseFile{from_dialog}, which the caller
// applies before end_file_dialog, so the dialog closes, or shows why the file was refused, in the
// same frame. Returns whether the modal is drawn (end_file_dialog only then). Where the platform
// picks files itself, a request is PickFile instead and nothing is drawn.
bool begin_file_dialog(const ViewContext& ctx, FileDialogState& d, const std::string& scenario_path, Commands& out);
void end_file_dialog(const ViewContext& ctx, FileDialogState& d);

}  // namespace attnlab::gui
