// A lesson's page in the GUI: the other half of its engine page (engine/lessons/<view>.hpp, whose
// numbers it draws), in the "Lesson view" window. Each is one pair of files named after the view,
// `<view>_page.hpp/.cpp`, and one line in lesson_page_registry.cpp; nothing else in the GUI names it.
// A page holds, in this order:
//   - its UI state, `<View>Ui`: plain data, made when the lesson opens (from its scenario, where the
//     struct has a constructor taking one) and dropped when another opens; none for a page without;
//   - its view, `draw_<view>_page(const PageInputs&, const <View>Numbers*, <View>Ui&, Commands&)`
//     (without the Ui where there is none): it reads the frame's context, the numbers of the shown
//     result (computed once per result, never in the view: null, with the sentence why, where they
//     cannot be computed) and its own UI state; it changes only that, and asks the rest of the app
//     for anything else by commands;
//   - no exercise of its own (issue 70): the Lesson view window shows the lesson's exercise instead
//     of the page when asked (exercise_tab.hpp), its state in LessonsUi::exercise.
// What the pages share is in lesson_matrix.hpp (the maps), lesson_numbers.hpp (the numbers) and
// walkthrough_steps.hpp (the walk-through, which runs on any lesson).
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "gui/lessons/lesson_matrix.hpp"
#include "gui/lessons/lessons_ui.hpp"
#include "gui/model_window/model_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"
#include "gui/training/training_ui.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace attnlab::gui {

// What every page reads this frame besides its numbers and its UI state, all const: the context, the
// Model and Training windows' state (a lesson asks them for something only by a command), the lab's
// selected cell (its maps outline it), and why the numbers are null when they are.
struct PageInputs {
  const ViewContext& ctx;
  const ModelUi& model;
  const TrainingUi& training;
  CellRef selected;
  std::string_view numbers_error;

  // What the page's maps are drawn on: their right-click menus and where they were drawn go to `out`.
  MapCanvas canvas(Commands& out) const { return MapCanvas{ctx, selected, out}; }
};

// The page of the lesson open: its UI state and its view (lesson_page_registry.cpp makes one for each
// page from its registry line).
class LessonPageView {
public:
  LessonPageView() = default;
  LessonPageView(const LessonPageView&) = delete;
  LessonPageView& operator=(const LessonPageView&) = delete;
  virtual ~LessonPageView() = default;
  // Draws the page in the Lesson view window: `numbers` are the shown result's (its engine page's
  // type behind the base; null where they cannot be computed, `in.numbers_error` saying why).
  virtual void draw(const PageInputs& in, const LessonNumbers* numbers, Commands& out) = 0;
  // Whether the page stays open for `shown`, another lesson's document: the induction lesson goes on
  // with the heads it lifts into the lab.
  virtual bool goes_on_with(const Scenario& shown, const TrainingUi& training) const = 0;
  // The page walks through its lesson a step at a time with a sentence of its own for each (the
  // online softmax's tiles, the induction lesson's steps): on a projector no "look at" band goes
  // under it (look_at_band.hpp), the steps' sentences saying what to look at.
  bool tells_its_steps = false;
};

// A page whose UI state is a `Ui` (what page_ui finds).
template <class Ui>
class PageState : public LessonPageView {
public:
  explicit PageState(Ui fresh) : ui(std::move(fresh)) {}
  Ui ui;
};

// The registry: the page of `s`'s lesson view with its UI state fresh, or null for a lesson that has
// no view of its own (the plain view).
std::unique_ptr<LessonPageView> make_lesson_page(const Scenario& s);

// Opens the page of `shown`'s lesson when another lesson's page is open (its UI state then starts
// afresh), unless the open page goes on with `shown`. The Lesson view window calls it each frame with
// the scenario of the result it shows.
void sync_lesson_page(LessonsUi& lessons, const Scenario& shown, const TrainingUi& training);

// The open page's UI state as `Ui`, or null when the open page is another's.
template <class Ui>
Ui* page_ui(LessonsUi& lessons) {
  auto* page = dynamic_cast<PageState<Ui>*>(lessons.page.get());
  return page ? &page->ui : nullptr;
}
// The same after opening the page of `s`'s lesson (sync_lesson_page): a test sets a page's UI state
// before its first frame.
template <class Ui>
Ui* page_ui(LessonsUi& lessons, const Scenario& s, const TrainingUi& training) {
  sync_lesson_page(lessons, s, training);
  return page_ui<Ui>(lessons);
}

// The page's numbers, or null after saying in place why there are none, after `lead` ("The online
// softmax cannot run here: ").
template <class T>
const T* numbers_or_why(const PageInputs& in, const T* numbers, std::string_view lead = {}) {
  if (!numbers) text_wrapped_unformatted(std::string(lead) + std::string(in.numbers_error));
  return numbers;
}

}  // namespace attnlab::gui
