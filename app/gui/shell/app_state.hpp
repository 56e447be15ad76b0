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
#include "gui/state/head_link_ui.hpp"
#include "gui/state/generate_ui.hpp"
#include "gui/state/lesson_ui.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/state/document.hpp"
#include "gui/state/edits.hpp"
#include "gui/state/result_caches.hpp"
#include "gui/state/results.hpp"
#include "gui/state/view_settings.hpp"
#include "gui/state/training_ui.hpp"
#include "gui/lab/lab_ui.hpp"
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

class ModelJob;         // model/model_job.hpp

// The Model window (model/model_window.cpp, docs/MODELS.md): the open model, its text and the
// last run. Never part of the document; "Open in the lab" lifts a head into it (actions::open_model_head).
struct ModelUi {
  std::shared_ptr<const model::LanguageModel> model;  // null until one opens
  std::string path;        // where it was opened from
  std::string path_input;  // the window's "open" field
  std::string error;       // why the last open, text or run was refused (the last good state stays)
  std::string text = "When Mary and John went to the store, John gave a drink to Mary. When Mary and John went to the store, John gave";
  std::vector<int> ids;    // the text's tokens, updated as it is typed
  std::shared_ptr<ModelJob> job;                  // the run in progress, if any
  std::shared_ptr<const model::ModelRun> run;     // the last finished run (ids: run->trace.ids)
  // The text run so far over a KV cache (engine/model/generate.hpp), which jobs extend and cut: used
  // by the job in progress alone while there is one.
  std::shared_ptr<model::CachedSequence> sequence;
  GenerateUi generate;     // Generate, the temperature slider, each written token's draw (generate_ui.hpp)
  bool cancelled = false;  // the user cancelled the last run: the map shows the run before it
  int layer = 0, head = 0; // the chosen head (keyboard, clicks)
  bool enlarged = false;   // the chosen head drawn large instead of the grid
  HeadLinkUi link;         // two chips clicked: every head ranked by its weight between them (head_link_ui.hpp)
  HeadHover hover;         // the cell under the mouse this frame
  KeyLabelLayout drawn_keys;  // the key tokens the enlarged map drew last (none while the grid shows)
  bool scroll_to_chosen = false;  // the keys chose a head: the grid scrolls it into view
  std::vector<std::string> lifted_titles;  // titles of heads lifted into the lab (the banner)
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
  LessonUi lesson;      // the walk-through and the special lesson views (lesson_ui.hpp)
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
  // The look the ImGui style was last built for (none yet): the frame rebuilds it when the view
  // settings have moved on, whoever moved them.
  std::optional<Look> style_look;
  bool small_screen = false;  // small_screen(display size) at the last frame (presenter mode's smaller font)
};

// The shown scenario and whether the result is current (results.hpp), for the whole state.
inline const Scenario& shown_scenario(const AppState& s) { return shown_scenario(s.results, s.doc); }
inline bool result_is_current(const AppState& s) { return result_is_current(s.results, s.doc_version); }

// What views read this frame (the shell hands it to them and to what applies their commands).
inline ViewContext view_context(const AppState& s, const Services& services) {
  return ViewContext{s.doc, s.doc_version, s.results, s.view, s.platform, services};
}
// Transitional, for views not yet given their parts: the heatmap style of the whole state, and where a
// heatmap was drawn.
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
