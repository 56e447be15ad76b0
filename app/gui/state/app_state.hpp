// The desktop app's whole state as plain structs: the document (a Scenario), its computed result,
// undo/redo history and the view settings. Panels read it; edits go through apply()
// (history.hpp, the catalogue in edits.hpp), recomputes through compute.hpp.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/stage.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "engine/io/export.hpp"
#include "engine/attention/overflow_notes.hpp"
#include "engine/lessons/scaling.hpp"
#include "engine/io/scenario.hpp"
#include "engine/model/model_report.hpp"
#include "gui/state/lesson_ui.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/state/result_caches.hpp"
#include "gui/state/training_ui.hpp"

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::gui {

class ComputeJob;       // compute_job.hpp
class BackgroundWrite;  // recovery_store.hpp
class ModelJob;         // model/model_job.hpp

// The three input matrices.
enum class Which { Q, K, V };
const char* which_name(Which w);

// The four sizes a user can change.
enum class Dim { N, M, Dk, Dv };
const char* dim_name(Dim d);  // "n", "m", "d_k", "d_v"

enum class Theme { Dark, Light };


// The document: what undo/redo restores and the session keeps.
struct Document {
  Scenario scenario;
  bool self_attention = true;  // K and V rows follow Q's tokens: m = n, key tokens = query tokens
};

// One entry of the undo or redo stack: the document as it was before (undo) or after (redo)
// the named action.
struct Snapshot {
  std::string action;
  Document doc;
};

struct History {
  std::vector<Snapshot> undo, redo;
  // Consecutive edits with the same non-empty key (scrubbing one cell, dragging a slider) share
  // one undo entry; cleared when the edit ends.
  std::string merge_key;
  static constexpr size_t kMaxEntries = 200;
};

// Where a heatmap was drawn last frame (screen pixels): the automatic layout, tests and the screenshot
// check read it.
struct DrawnRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int rows = 0, cols = 0;
  bool drawn = false;
  float number_size = 0;        // the font size of the numbers inside the cells; 0: none drawn
  float left = 0;               // the left edge of the row labels (x0 when there are none)
  float top = 0;                // the top edge of the column labels (y0 when there are none)
  bool labels_cut = false;      // some token label was drawn shortened
  bool labels_rotated = false;  // the column labels read upwards (too wide to fit across a cell)
};

// Settings that are not part of the document: kept in the session file, never undone.
struct ViewSettings {
  bool presenter = false;
  Theme theme = Theme::Dark;
  std::string sequential = "viridis";
  std::string diverging = "blue-white-red";
  bool numbers_in_cells = true;
  bool inputs_hidden = false;  // the inputs column folded away: the pipeline gets the whole width
  // In presenter mode the inputs column folds away by itself while the pipeline needs the width to
  // show numbers in its cells (a six-token lesson on a 1280 × 720 projector); I brings it back.
  bool inputs_auto_fold = true;
  float left_width = 0.0f;     // 0: automatic (a share of the window)
  float bottom_height = 0.0f;  // 0: automatic
  // B or the tab bar's ▲: the tabs under the pipeline take most of the column (an explanation on a
  // 720-pixel-high projector); a drag of the splitter ends it.
  bool tabs_enlarged = false;
  std::map<std::string, bool> open_windows;  // floating panels ("Help", ...) by name
};

// Which file the in-app file dialog is choosing, and for what.
enum class FilePurpose { None, OpenScenario, SaveScenario, OpenMatrixQ, OpenMatrixK, OpenMatrixV, SaveLessonCard, OpenModel, SaveTrainedModel };

struct FileDialogState {
  FilePurpose purpose = FilePurpose::None;
  bool request_open = false;  // the popup opens on the next frame
  std::string directory;
  std::string file_name;
  std::string error;
  std::string card_lesson;  // SaveLessonCard: the built-in lesson whose reference card is written
};

// A size change that needs the user's yes first (its dense stages are big).
struct PendingResize {
  bool active = false;
  Dim dim = Dim::N;
  int value = 0;
  double bytes = 0;
  bool streams = false;  // the new size is computed by streaming (compute_job.hpp)
};

// Which input matrices a fill (random, identity, zeros) writes: one of them, or all three.
enum class FillTarget { Q, K, V, All };

// Inputs-panel state that is not part of the scenario file.
struct InputsUi {
  float sigma = 1.0f;
  int seed = 1;
  FillTarget fill_target = FillTarget::All;
  std::string sentence;
  std::string cell_error;  // a cell's text that did not parse, with the kept value
  std::string drop_path;   // a dropped .npy/.csv waiting for "into Q, K or V?"
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
  bool cancelled = false;  // the user cancelled the last run: the map shows the run before it
  int layer = 0, head = 0; // the chosen head (keyboard, clicks)
  bool enlarged = false;   // the chosen head drawn large instead of the grid
  std::vector<std::string> lifted_titles;  // titles of heads lifted into the lab (the banner)
};

// A document left behind by a run that did not exit cleanly (crash, kill -9, power cut).
struct RecoveredWork {
  Document doc;
  std::string scenario_path;
  std::string saved_at;  // local time, "2026-11-21 07:03:12"
};

// The recovery file (recovery_store.hpp): what was written last, and the offer made at start-up.
struct RecoveryUi {
  std::uint64_t written_version = 0;  // doc_version that the recovery file holds
  double changed_at = -1;             // seconds (frame clock) of the last unwritten change
  bool offer = false;                 // ask "restore unsaved work?" until answered
  RecoveredWork work;
  std::string write_error;            // shown once in the status line when writing fails
  std::shared_ptr<BackgroundWrite> in_flight;  // a large document's write, running (recovery_store.hpp)
};

struct AppState {
  Document doc;
  std::uint64_t doc_version = 0;  // bumped by every change to doc (undo, redo and resets too)
  std::string scenario_path;   // where it was opened from / saved to; empty for a new one

  // The result of the last good computation of the document; kept when a computation fails.
  Result result;
  bool has_result = false;
  // Derived from the result once per computation, not per frame (n × m scans cost at n = 1024):
  BlockGrid blocked;  // n × m, the mask the result was computed with
  std::array<std::pair<double, double>, kStageCount> ranges{};  // finite min/max of each stage
  OverflowNotes overflow;  // why any stage shows ±∞ (float32 overflow), one sentence per kind
  // The document the result was computed from: an edit whose computation is refused as bad input
  // (scores that are not a number, sizes that cannot fit) is rolled back to it.
  std::optional<Document> computed_doc;
  bool needs_compute = true;
  std::uint64_t result_version = 0;  // bumped on every new result (GL textures re-upload on change)
  double last_compute_ms = 0;
  std::string backend_description;
  BackendChoice backend_choice = BackendChoice::Cpu;
  // A document too large for dense stages (compute_job.hpp: gui_streams) is computed by streaming
  // on a background thread; set while that runs. The result stays the last good one meanwhile
  // (has_result is false when its sizes differ from the document's).
  std::shared_ptr<ComputeJob> job;
  bool job_cancelled = false;  // the user cancelled the last streaming run: nothing is computing
  StreamedViews streamed;  // derived from a streamed result once (result_caches.hpp)

  ScalingLabState scaling;

  // The one-sentence reason the last edit, file or computation was refused (shown in place).
  std::string error;
  std::string notice;  // a short confirmation ("Saved lesson.json")

  History history;
  ViewSettings view;
  std::array<DrawnRect, kStageCount> drawn{};
  // The walk-through step's inputs as drawn last frame, top or left first: `drawn` keeps one per
  // stage, and a step's inputs share their stage with its result.
  std::vector<DrawnRect> walk_inputs_drawn;
  CellRef hovered;   // under the mouse this frame
  CellRef selected;  // clicked: the explain panel follows it when nothing is hovered
  std::string focus_panel;
  // Measured by the pipeline panel each frame, used by the host's automatic layout on the next:
  float pipeline_wants_height = 0;  // the height its heatmaps can use
  float pipeline_needs_height = 0;  // the height below which the numbers in its cells get too small
  float pipeline_needs_width = 0;   // the width below which the numbers in its cells get too small
  bool inputs_auto_folded = false;  // the host folded the inputs column this frame (inputs_auto_fold)

  InputsUi inputs;
  ExportUi export_ui;
  ModelUi model;
  TrainingUi training;  // the Training window (training_ui.hpp)
  LessonUi lesson;          // the walk-through and the special lesson views (lesson_ui.hpp)
  LessonViewModel lesson_model;  // what the lesson views draw, once per document (lesson_view_model.hpp)
  RecoveryUi recovery;
  FileDialogState file_dialog;
  PendingResize pending_resize;
  std::vector<std::string> recent_files;  // most recent first
  std::vector<std::string> dropped_files;  // from the window, handled next frame

  float frame_ms = 0;  // the last frame's time
  bool quit_requested = false;
  bool style_dirty = true;  // theme or presenter changed: rebuild the ImGui style
  bool small_screen = false;  // small_screen(display size) at the last frame (presenter mode's smaller font)
};

// The stage's matrix in the current result (saturation included).
const Matrix& stage_matrix(const Result& r, Stage s);
// True for the signed stages drawn with the diverging colormap (scores, logits, output).
bool stage_is_signed(Stage s);

// The display labels of query rows and key columns (the scenario's, or t1, t2, ...).
std::vector<std::string> query_labels(const AppState& s);
std::vector<std::string> key_labels(const AppState& s);

// Whether the inputs column is folded away this frame: by the user (I) or by presenter mode.
bool inputs_column_hidden(const AppState& s);
// I and View > Inputs column: shows a folded column (and, when presenter mode had folded it, stops
// folding it automatically), folds a shown one.
void toggle_inputs_column(AppState& s);

}  // namespace attnlab::gui
