// The desktop app's whole state as plain structs: the document (a Scenario), its computed result,
// undo/redo history and the view settings. Panels read it; edits go through apply()
// (history.hpp, the catalogue in edits.hpp), recomputes through compute.hpp.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/stage.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "engine/figures/export.hpp"
#include "engine/attention/overflow_notes.hpp"
#include "engine/lessons/scaling.hpp"
#include "engine/io/scenario.hpp"
#include "engine/model/generate.hpp"
#include "engine/model/model_report.hpp"
#include "gui/base/look.hpp"
#include "gui/widgets/drawn_rect.hpp"
#include "gui/state/document.hpp"
#include "gui/state/edits.hpp"
#include "gui/state/result_caches.hpp"
#include "gui/state/results.hpp"
#include "gui/state/view_settings.hpp"
#include "gui/training/training_ui.hpp"
#include "gui/lab/lab_ui.hpp"
#include "gui/lessons/lessons_ui.hpp"
#include "gui/model_window/model_ui.hpp"
#include "gui/scaling_lab/scaling_lab_ui.hpp"
#include "gui/state/view_style.hpp"
#include "gui/persistence/recovery_store.hpp"
#include "gui/dialogs/export_dialog.hpp"
#include "gui/dialogs/file_dialog.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::gui {

// The app: the document and its history, the results, the view settings, a UI struct per window,
// and what the shell keeps (the status line, files, the frame).
struct AppState {
  Document doc;
  std::uint64_t doc_version = 0;  // bumped by every change to doc (undo, redo and resets too)
  std::string scenario_path;   // where it was opened from / saved to; empty for a new one
  History history;

  Results results;

  ViewSettings view;
  PipelineUi pipeline;
  LayoutUi layout;
  InputsUi inputs;
  ExportUi export_ui;
  ModelUi model;
  TrainingUi training;  // the Training window (training_ui.hpp)
  LessonsUi lesson;     // the walk-through, the lesson's text and the open lesson's page (lessons_ui.hpp)
  ScalingLabState scaling;
  RecoveryUi recovery;
  FileDialogState file_dialog;
  PendingResize pending_resize;

  // The one-sentence reason the last edit, file or computation was refused (shown in place).
  std::string error;
  std::string notice;  // a short confirmation ("Saved lesson.json")
  std::string focus_panel;  // a tab to bring forward on the next frame
  std::vector<std::string> recent_files;   // most recent first
  ExerciseProgress exercises;              // what the student solved of each lesson's exercise (session)
  std::vector<std::string> dropped_files;  // from the window, handled next frame
  PlatformTraits platform;                 // set once at start-up from the platform
  std::vector<Delivery> deliveries;        // written this frame, handed over by the platform after it
  float frame_ms = 0;  // the last frame's time
  bool quit_requested = false;
  // The look the ImGui style was last built for (none yet): the frame rebuilds it when the view
  // settings have moved on, whoever moved them.
  std::optional<Look> style_look;
  bool small_screen = false;  // small_screen(display size) at the last frame (presenter mode's smaller font)
};

// What views read this frame: the shell hands it to them and to what applies their commands.
inline ViewContext view_context(const AppState& s, const Services& services) {
  return ViewContext{s.doc, s.doc_version, s.results, s.view, s.platform, services};
}

}  // namespace attnlab::gui
