// GUI state of the lessons: the classroom walk-through and the special lesson views. Not part of
// the document (never undone, never saved): a lesson's own parameters come from its file.
#pragma once

#include "engine/lessons/kv_cache.hpp"
#include "engine/lessons/lesson_text.hpp"
#include "engine/lessons/multi_head.hpp"

#include <cstdint>
#include <optional>

#include <string>
#include <vector>

namespace attnlab::gui {

enum class Which;  // Q, K or V (app_state.hpp)

// The walk-through reveals the pipeline one step at a time (Space / → / PageDown forward, ← back).
enum class WalkStep { Inputs = 0, Scores, Scale, Mask, Softmax, Output };
inline constexpr int kWalkSteps = 6;

struct WalkthroughUi {
  bool active = false;
  int step = 0;  // a WalkStep
};

// The multi-head view's weight editor shows one head's W_Q, W_K or W_V.
enum class HeadMatrix { WQ, WK, WV };

struct LessonUi {
  std::string loaded_key;  // which lesson the fields below were set up for (title + lesson JSON)
  std::string shown_key;   // which lesson the Lesson panel last brought its view forward for
  bool env_checked = false;  // ATTNLAB_GUI_WALK (screenshots of a walk-through step) was read
  WalkthroughUi walk;
  std::optional<bool> placed_for_presenter;  // the mode the Lesson view window was last laid out for

  // The lesson's text filled with the current numbers (lesson_text.hpp), redone when the result or
  // the document changes, not every frame; and which built-in lesson the document came from.
  RenderedLesson text;
  LessonOrigin origin;
  std::string text_error;  // a lesson text that could not be filled (bad template syntax)
  std::uint64_t text_result_version = UINT64_MAX;
  std::uint64_t text_doc_version = UINT64_MAX;
  // The Lesson tab's content height when it was last drawn (ImGui frame number): the host's layout
  // gives the tabs that much where the pipeline can spare it.
  float panel_needs_height = 0;
  int panel_drawn_frame = -1;
  // Where "Reset lesson" was drawn last frame (screen pixels; zero size when it was not): lets
  // tests click it as a user would.
  float reset_x0 = 0, reset_y0 = 0, reset_x1 = 0, reset_y1 = 0;
  std::string card_lesson;  // Help's lesson index: the lesson whose reference card is shown
  std::string card_for;     // the lesson card_text was filled for (filling it computes the lesson)
  RenderedLesson card_text;
  std::string card_title;

  // Multi-head view: weights are seeded random until the user edits one.
  int heads = 4;
  int seed = 7;
  bool share = false;
  bool weights_edited = false;
  std::uint64_t weights_version = 0;  // bumped by every change to `weights` (the view model's key)
  MultiHeadWeights weights;
  std::string weights_key;  // d_model/heads/seed/share the weights were drawn for
  int edit_head = 0;
  HeadMatrix edit_matrix = HeadMatrix::WQ;

  // Temperature view.
  double tau = 1.0;
  bool playing = false;
  double play_time = 0;  // seconds into the back-and-forth sweep
  std::string frames_folder = "attnlab-temperature-frames";
  bool frames_overwrite = false;
  std::string frames_status;

  // Precision view: which of the 18 runs is shown cell by cell.
  int precision_run = 9;  // float16, no max-subtraction, −∞: the overflow

  // Geometry view: the point being dragged (a query, key or value: its matrix and row; none when
  // nothing is dragged) and the plane's half-width, frozen while dragging so the plane does not
  // slide under the mouse.
  std::optional<Which> drag_kind;
  int drag_index = -1;
  double plane_half = 0;

  // Online-softmax view: the tile of keys shown (0-based; the keys walk through them).
  int online_step = 0;

  // "Watch an induction head form" (train_induction_view.cpp): its step (the walk-through's keys
  // move it), the step whose action (start training, lift a head) has been taken, and whether the
  // lesson is under way, so that the heads it lifts into the document keep its view.
  int induction_step = 0;
  int induction_entered = -1;
  bool induction_active = false;
  int induction_lift_layer = -1;  // the layer of the head the lesson lifted last
  // "What heads do in a trained model" opened the built-in induction model (once: a failure is not
  // retried every frame).
  bool builtin_model_tried = false;

  // Cost view: a measured time of one computation at n = 1024 on the active backend.
  double measured_ms = 0;
  std::string measured_backend;

  // KV-cache view (kv_cache_view.cpp): the part shown, and the check and the timing run on the
  // model the Model window has open (its name), or the sentence why they could not run.
  int cache_part = 0;
  std::optional<CacheCheck> cache_check;
  std::optional<CacheCost> cache_cost;
  std::string cache_model, cache_error;
};

}  // namespace attnlab::gui
