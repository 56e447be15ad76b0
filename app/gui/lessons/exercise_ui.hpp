// The Exercise tab's state (issue 70; exercise_tab.hpp draws it): the exercise of the lesson shown,
// drawn from a seed by the engine (engine/lessons/exercise.hpp, the same exercise as `attnlab
// exercise LESSON --seed S`), the student's answers as typed and their grades. Plain data with no
// ImGui, lived in LessonsUi beside the lesson's page; what a student solved is kept with the session
// (ExerciseProgress, saved by the shell through the RecordExercise command).
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/exercise_grade.hpp"
#include "gui/state/exercise_progress.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::gui {

struct ExercisePartUi {
  std::string text;                // the answer as typed: "0.21, 0.33, 0.46", "2", "0 1; 0 2"
  std::optional<PartGrade> grade;  // after Check, for the text checked
  std::string refused;             // why the text could not be read as an answer (one sentence)
  bool show_working = false;
};

struct ExerciseUi {
  std::string for_title;  // the shown scenario's title that `lesson` was found for
  std::string lesson;     // its built-in lesson; empty when the scenario is none
  std::uint64_t seed = 0;
  std::optional<Exercise> exercise;
  std::string error;  // why there is no exercise (a lesson that cannot draw one)
  std::vector<ExercisePartUi> parts;
  std::uint64_t seed_field = 1;  // the "Seed" field, applied by "Open": any seed the command line and a link take
  // The Lesson view window shows the exercise instead of the lesson's page (its Exercise button).
  bool shown = false;
  unsigned last_field = 0;  // the ImGui id of the answer field used last (a click on K answers it)
  // Answers to fill in and check as the tab opens (ATTNLAB_GUI_EXERCISE_ANSWERS, the CLI's answer
  // format), for screenshots and tests; empty: none.
  std::string pending_answers;
  std::optional<std::uint64_t> open_seed;  // the seed to open the next exercise at (ATTNLAB_GUI_EXERCISE)
};

// The built-in lesson a scenario came from (matched by its title, as the Lesson tab does), or "".
std::string exercise_lesson_of(const Scenario& s);

// Shows `doc`'s exercise at `seed` once the Lesson view draws (a link's &exercise=SEED; the caller
// opens that window). Returns why it cannot (`doc` is not a built-in lesson), empty when it will.
std::string show_linked_exercise(ExerciseUi& ui, const Scenario& doc, std::uint64_t seed);

// The seed of the exercise shown for `doc`, which a share link carries; none when the Lesson view
// shows no exercise of `doc`'s lesson.
std::optional<std::uint64_t> shown_exercise_seed(const ExerciseUi& ui, const Scenario& doc);

// Draws lesson `lesson`'s exercise for `seed` into `ui` (answers and grades start afresh). Errors
// (a lesson that cannot draw one) go to ui.error.
void open_exercise(ExerciseUi& ui, const std::string& lesson, std::uint64_t seed);

// Reads a part's answer as a student types it: numbers separated by commas or spaces ("0.2, 0.3,
// 0.5"; a blocked logit as -inf, −∞ or null), one number or key, rows separated by ";" for a
// matrix, cells as pairs of numbers ("0 1; 0 2", "(0,1) (0,2)") for blocked cells. Throws InputError
// with one sentence naming the part, as the command line's reader does (parse_part_answer).
AnswerValue read_typed_answer(const std::string& text, const ExercisePart& part, const Exercise& e);

// The answer written back as a student would type it (what read_typed_answer reads): for filling
// the fields from an answer file.
std::string typed_answer(const AnswerValue& v, PartKind kind);

// Checks every part whose field is not empty. Returns the ids of the parts right (for the record).
std::vector<std::string> check_exercise(ExerciseUi& ui);

// Fills the fields from an answer file's text ({"parts": {"a": …}}, parse_answers) and checks them;
// false, with ui.error saying why, when it cannot be read.
bool fill_answers(ExerciseUi& ui, const std::string& json_text);

}  // namespace attnlab::gui
