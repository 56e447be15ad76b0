// The "Lesson view" window (lesson_view_panel.cpp): the walk-through while it runs, else the page of
// the lesson shown, else a pointer to the lessons that have one.
#pragma once

#include "gui/lessons/lessons_ui.hpp"
#include "gui/model_window/model_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"
#include "gui/training/training_ui.hpp"

namespace attnlab::gui {

// Reads the shown result and, for the lessons that use them, the Model and Training windows' state
// (const: what a lesson wants of them it asks by a command) and the lab's selected cell, which its
// maps outline; changes the lessons' UI state (the walk-through's step, the open page's state);
// opens the page of the lesson shown (sync_lesson_page) and computes its numbers once per result.
// `exercises` is the session's record of solved exercises, which the Exercise tab shows.
void draw_lesson_view_panel(const ViewContext& ctx, LessonsUi& lessons, const ModelUi& model, const TrainingUi& training,
                            CellRef selected, const ExerciseProgress& exercises, Commands& out);

// Whether the Lesson view shows "Watch an induction head form": its document, or a head it lifted
// from it (its page goes on with those).
bool induction_lesson_shown(const LessonsUi& lessons);

}  // namespace attnlab::gui
