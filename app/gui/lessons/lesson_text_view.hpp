// The lesson's text in the GUI: its four parts filled with the current numbers (engine/lesson_text),
// drawn with real bullets and the numbers in a highlight colour, the "you have changed this
// lesson's numbers" notice with its Reset, and the reference cards of Help's lesson index.
#pragma once

#include "engine/io/lesson_template.hpp"
#include "gui/lessons/lessons_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

#include <imgui.h>

#include <vector>

namespace attnlab::gui {

// Fills the lesson's text and origin again when the result or the document changed.
void refresh_lesson_text(LessonsUi& lessons, const ViewContext& ctx);

// Draws `spans` wrapped between words at the content region's right edge; continuation lines start
// where the first line started. Numbers are drawn in `number_color`.
void draw_spans(const std::vector<TextSpan>& spans, ImU32 text_color, ImU32 number_color);

// Goal, Look at, Try, the edit notice (with Reset lesson: ResetLesson) or the course text's own
// numbers, and Source. Draws nothing when the document's lesson has no text.
void draw_lesson_text(const ViewContext& ctx, LessonsUi& lessons, Commands& out);

// Help's lesson index: every built-in lesson with its source; the chosen one's reference card
// (title, source, goal, what to try, keys), "Open this lesson" (LoadPreset) and "Export reference
// card (PDF)…" (ChooseFile).
void draw_lesson_index(const ViewContext& ctx, LessonCardUi& card, Commands& out);

}  // namespace attnlab::gui
