// The Applier: each command's effect on the app's state (apply_command.hpp is its front door), one
// operator() per command of state/commands.hpp. Its cases are in three files by what they concern:
// apply_command.cpp (the document and its history, the windows, the status line), apply_files.cpp
// (files, exports and the clipboard), apply_features.cpp (the backend, the lab's maps and streaming,
// the Model and Training windows, the lessons). Internal to the shell.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/services.hpp"

#include <string>

namespace attnlab::gui {

struct Applier {
  AppState& state;
  Services& services;

  // Commands an action returned, applied in order.
  void apply_all(Commands more);

  // [apply_command.cpp] The document, its history, the windows and the status line.
  bool operator()(const Edit& e);
  bool operator()(const EndMerge&);
  bool operator()(const Undo&);
  bool operator()(const Redo&);
  bool operator()(const Resize& r);
  bool operator()(const LoadScenario& c);
  bool operator()(const LoadPreset& c);
  bool operator()(const ResetLesson&);
  bool operator()(const RestoreWork& w);
  bool operator()(const SayError& c);
  bool operator()(const SayNotice& c);
  bool operator()(const ShowWindow& c);
  bool operator()(const FocusPanel& c);
  bool operator()(const SetView& c);
  bool operator()(const ToggleInputsColumn&);
  bool operator()(const Quit&);

  // [apply_files.cpp] Files chosen, picked, dropped, opened and saved; exports and copies.
  bool operator()(const ChooseFile& c);
  bool operator()(const UseFile& c);
  bool operator()(const PickFile& c);
  bool operator()(const OpenFile& c);
  bool operator()(const Deliver& c);
  bool operator()(const StageMenu& m);
  bool operator()(const OpenExport& c);
  bool operator()(const ExportFile& c);
  bool operator()(const WindowScreenshot&);
  bool operator()(const ShareLink&);

  // [apply_features.cpp] The backend, the lab's maps and streaming, the Model and Training windows,
  // the lessons' walk-through and exercises.
  bool operator()(const SelectBackend& c);
  bool operator()(const StartStreaming&);
  bool operator()(const CancelStreaming&);
  bool operator()(const SelectCell& c);
  bool operator()(const ForgetSelectedCell&);
  bool operator()(const MapDrawn& c);
  bool operator()(const LessonMapsListed& c);
  bool operator()(const OpenInModelWindow& c);
  bool operator()(const FollowModelRun& c);
  bool operator()(const AskWhichHeadsLink& c);
  bool operator()(const ChooseModelHead& c);
  bool operator()(const LiftModelHead& c);
  bool operator()(const SetGenerateSettings& c);
  bool operator()(const StartTraining& c);
  bool operator()(const LiftTrainingHead& c);
  bool operator()(const StartWalkthrough&);
  bool operator()(const StopWalkthrough&);
  bool operator()(const RecordExercise& c);

private:
  // apply_command.cpp
  bool step_history(bool forward);
  bool load_preset(const std::string& preset, const std::string& action);
  // apply_files.cpp
  std::string use_file(FilePurpose purpose, const std::string& path);
  void open_scenario(const std::string& path);
  void save_scenario(const std::string& path);
  void open_matrix(Which which, const std::string& path);
  void save_lesson_card(const std::string& lesson, const std::string& path);
  std::string save_name(FilePurpose purpose) const;
};

// After the document changed (an edit, undo, redo, a reset): the result is recomputed and the next
// frame's views see the new version.
void document_changed(Results& results, std::uint64_t& doc_version);

}  // namespace attnlab::gui
