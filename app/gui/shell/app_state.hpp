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
#include "gui/state/view_style.hpp"
#include "gui/persistence/recovery_store.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::gui {

// Which file the in-app file dialog is choosing, and for what.

struct FileDialogState {
  FilePurpose purpose = FilePurpose::None;
  bool request_open = false;  // the popup opens on the next frame
  std::string directory;
  std::string file_name;
  std::string error;
  std::string card_lesson;  // SaveLessonCard: the built-in lesson whose reference card is written
};

// Which compute backend the user asked for (Backend menu); the status bar shows the active one.

// The Scaling lab (scaling_lab_panel.cpp): Exercise 2.3.1 run a slice per frame so the GUI stays
// responsive; cancel keeps the d_k values already finished.
struct ScalingLabState {
  static constexpr int kDkChoices = 17;  // d_k = 1, 2, 4, …, 65536
  std::array<bool, kDkChoices> dk_on{};  // set in the constructor: 8, 64, 512, 4096
  int keys = 10;
  int trials = 1000;
  int seed = 42;
  int histogram_row = 0;             // index into result.rows
  std::optional<ScalingJob> job;     // set while running
  ScalingResult result;              // the last finished (or cancelled) run
  std::string status;                // "cancelled after 2 of 4 d_k", "1.2 s on GPU: …"
  std::string error;
  double started_ms = 0;             // steady clock at start, for the status line
  ScalingLabState() { dk_on[3] = dk_on[6] = dk_on[9] = dk_on[12] = true; }
  bool running() const { return job.has_value(); }
};

// The Export dialog's choices (the options of `attnlab export`) and its preview (export_dialog.cpp).
struct ExportUi {
  Stage stage = Stage::Weights;  // one stage, or Stage::Pipeline (a figure of them all)
  ExportFormat format = ExportFormat::Png;
  bool annotate = true;
  std::string colormap;  // empty: the stage's default
  std::string title;     // empty: the scenario's
  bool fixed_range = false;
  float range_lo = 0.0f, range_hi = 1.0f;
  int width_px = 0;   // PNG width; 0: automatic
  int decimals = 3;   // LaTeX
  std::string directory, file_name;
  bool confirm_overwrite = false;  // the file exists: asking before replacing it
  std::string error;               // one sentence, shown in the dialog
  float actions_height = 0;        // the buttons' and messages' height last frame, kept in view below the choices
  // The preview: the PNG as it will be written, as a GL texture (0: none yet).
  unsigned preview_texture = 0;
  int preview_w = 0, preview_h = 0;
  size_t preview_bytes = 0;
  std::string preview_key, preview_error;
  // "Save window screenshot": the host writes the window's pixels here once the countdown ends.
  std::string screenshot_path;
  int screenshot_countdown = 0;
  bool reopen_after_screenshot = false;
};

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
  std::vector<std::string> dropped_files;  // from the window, handled next frame
  PlatformTraits platform;                 // set once at start-up from the platform
  std::vector<Delivery> deliveries;        // written this frame, handed over by the platform after it
  float frame_ms = 0;  // the last frame's time
  bool quit_requested = false;
  bool style_dirty = true;  // theme or presenter changed: rebuild the ImGui style
  bool small_screen = false;  // small_screen(display size) at the last frame (presenter mode's smaller font)
};

// The shown scenario and whether the result is current (results.hpp), for the whole state.
inline const Scenario& shown_scenario(const AppState& s) { return shown_scenario(s.results, s.doc); }
inline bool result_is_current(const AppState& s) { return result_is_current(s.results, s.doc_version); }

// Transitional, for views not yet given their parts: the context and the heatmap style of the whole
// state, and where a heatmap was drawn.
inline ViewContext view_context(const AppState& s, const Services& services) {
  return ViewContext{s.doc, s.doc_version, s.results, s.view, s.platform, services};
}
inline HeatmapStyle heatmap_style(const AppState& s, const Services& services) {
  return heatmap_style(view_context(s, services), s.pipeline.selected);
}
inline void keep_drawn(AppState& s, Stage stage, const HeatmapEvents& events) { keep_drawn(s.pipeline, stage, events); }

// Whether the inputs column is folded away this frame: by the user (I) or by presenter mode.
bool inputs_column_hidden(const AppState& s);
// I and View > Inputs column: shows a folded column (and, when presenter mode had folded it, stops
// folding it automatically), folds a shown one.
void toggle_inputs_column(AppState& s);

}  // namespace attnlab::gui
