// The Exercise tab (issue 70): what the Lesson view window shows instead of the lesson's page when the
// Lesson tab's Exercise button asks (ExerciseUi::shown; "Back to the lesson" returns, and the page
// keeps the whole window). The exercise of the lesson shown, the same as `attnlab exercise LESSON
// --seed S` prints. Its givens drawn as the lab draws matrices, a field
// per part (a click on a key of K answers "which key"), Check with ✓ or ✗ and the grader's sentence
// per part, "Show the working", "New numbers" and a seed to open. Its state is ExerciseUi (in
// LessonsUi, beside the lesson's page); what a student solves goes to the session by RecordExercise.
#pragma once

#include "gui/lessons/exercise_ui.hpp"
#include "gui/lessons/lesson_matrix.hpp"

#include <string>

namespace attnlab::gui {

// Opens the exercise of the shown scenario's lesson in `ui` when the lesson changed: at the seed the
// session recorded for it, else seed 1. Cheap when nothing changed (call it every frame).
void sync_exercise(ExerciseUi& ui, const Scenario& shown, const ExerciseProgress& progress);

// Draws the tab's content. `progress` is the session's record (read only; RecordExercise changes it).
void draw_exercise_tab(const MapCanvas& canvas, const ExerciseProgress& progress, ExerciseUi& ui);

}  // namespace attnlab::gui
