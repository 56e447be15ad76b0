// The Lesson tab (lesson_panel.cpp): the lesson in view, its text, the way into its page and the
// walk-through, and the previous and next lesson.
#pragma once

#include "gui/lessons/lessons_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the live document (its title and lesson) and the shown result's numbers for the text;
// changes the lessons' UI state (the walk-through, the text, the tab's height for the host's layout);
// a lesson opened or reset and the Lesson view window shown are handed on as commands.
void draw_lesson_panel(const ViewContext& ctx, LessonsUi& lessons, Commands& out);

}  // namespace attnlab::gui
