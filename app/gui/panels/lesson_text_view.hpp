// The lesson's text in the GUI: its four parts filled with the current numbers (engine/lesson_text),
// drawn with real bullets and the numbers in a highlight colour, the "you have changed this
// lesson's numbers" notice with its Reset, and the reference cards of Help's lesson index.
#pragma once

#include "engine/io/lesson_template.hpp"
#include "gui/shell/app_state.hpp"

#include <imgui.h>

#include <vector>

namespace attnlab::gui {

struct Services;

// Fills state.lesson.text and state.lesson.origin again when the result or the document changed.
void refresh_lesson_text(AppState& state);

// Draws `spans` wrapped between words at the content region's right edge; continuation lines start
// where the first line started. Numbers are drawn in `number_color`.
void draw_spans(const std::vector<TextSpan>& spans, ImU32 text_color, ImU32 number_color);

// Goal, Look at, Try, the edit notice (with Reset lesson) or the course text's own numbers, and
// Source. Draws nothing when the document's lesson has no text.
void draw_lesson_text(AppState& state, Services& services);

// Help's lesson index: every built-in lesson with its source; the chosen one's reference card
// (title, source, goal, what to try, keys) and "Export reference card (PDF)…".
void draw_lesson_index(AppState& state, Services& services);

}  // namespace attnlab::gui
