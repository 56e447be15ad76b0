// The lessons' UI state: what every lesson shares (the classroom walk-through, the lesson's text in
// the Lesson tab, Help's reference cards, the shown result's numbers) and the page of the lesson
// open, which holds that lesson's own UI state (lesson_page.hpp). Plain data, none of it part of the
// document: never undone, never saved; a lesson's own parameters come from its file. The shell reads
// `walk` and the Lesson tab's height (const); the lessons' actions and views change the rest.
#pragma once

#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_text.hpp"
#include "gui/lessons/exercise_ui.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace attnlab::gui {

class LessonPageView;  // lesson_page.hpp

// The walk-through reveals the pipeline one step at a time (Space / → / PageDown forward, ← back).
enum class WalkStep { Inputs = 0, Scores, Scale, Mask, Softmax, Output };
inline constexpr int kWalkSteps = 6;

struct WalkthroughUi {
  bool active = false;
  int step = 0;  // a WalkStep
};

// The numbers of the shown result's lesson (the engine's compute_lesson, its page's own type behind
// LessonNumbers), computed once per result on the chosen backend (lesson_numbers.hpp).
struct LessonNumbersCache {
  std::uint64_t result_version = UINT64_MAX;  // the result they belong to
  std::shared_ptr<const LessonNumbers> numbers;
  std::string error;  // why they cannot be computed for this scenario
};

// Help's lesson index: the lesson whose reference card is shown, and its card, filled once per
// choice (filling it computes the lesson).
struct LessonCardUi {
  std::string lesson;      // the built-in lesson chosen
  std::string filled_for;  // the lesson `text` and `title` were filled for
  RenderedLesson text;
  std::string title;
};

struct LessonsUi {
  LessonsUi();
  ~LessonsUi();
  LessonsUi(LessonsUi&&) noexcept;
  LessonsUi& operator=(LessonsUi&&) noexcept;

  WalkthroughUi walk;
  bool env_checked = false;  // ATTNLAB_GUI_WALK (screenshots of a walk-through step) was read

  // The Lesson tab (lesson_panel.hpp). The lesson it last brought its view forward for; the lesson's
  // text filled with the current numbers, redone when the result or the document changes, not every
  // frame, and which built-in lesson the document came from.
  std::string shown_key;
  RenderedLesson text;
  LessonOrigin origin;
  std::string text_error;  // a lesson text that could not be filled (bad template syntax)
  std::uint64_t text_result_version = UINT64_MAX;
  std::uint64_t text_doc_version = UINT64_MAX;
  // The tab's content height when it was last drawn (ImGui frame number): the host's layout gives
  // the tabs that much where the pipeline can spare it.
  float panel_needs_height = 0;
  int panel_drawn_frame = -1;
  // Where "Reset lesson" was drawn last frame (screen pixels; zero size when it was not): lets tests
  // click it as a user would.
  float reset_x0 = 0, reset_y0 = 0, reset_x1 = 0, reset_y1 = 0;

  LessonCardUi card;  // Help's lesson index (lesson_text_view.hpp)

  // The Lesson view's "look at" band on a projector (look_at_band.hpp): the part shown, for the
  // lesson `band_key` names (title + lesson JSON), and the height it needed beyond its measure.
  std::string band_key;
  int band_part = 0;
  float band_extra = 0;

  // The "Lesson view" window (lesson_view_panel.hpp): the mode it was last laid out for, the shown
  // result's numbers, and the open lesson's page with its own UI state, made when that lesson opens
  // (null for a lesson with no view of its own) for the lesson `page_key` names (title + lesson JSON).
  std::optional<bool> placed_for_presenter;
  LessonNumbersCache numbers;
  std::unique_ptr<LessonPageView> page;
  std::string page_key;
  // The window's Exercise tab (exercise_tab.hpp), shown instead of the page: the shown lesson's exercise.
  ExerciseUi exercise;
};

}  // namespace attnlab::gui
