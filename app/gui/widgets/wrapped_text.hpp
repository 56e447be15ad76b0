// Drop-in replacements for ImGui::TextWrapped that wrap only between words (see text_layout.hpp),
// so a number such as 1.414 is never split across two lines.
#pragma once

#include <imgui.h>

#include <string_view>

namespace attnlab::gui {

// Like ImGui::TextWrapped: wraps at the current text wrap position (PushTextWrapPos), or at the end
// of the content region when none was pushed.
void text_wrapped(const char* fmt, ...) IM_FMTARGS(1);
void text_wrapped_unformatted(std::string_view text);
// The height text_wrapped_unformatted would give `text` at the cursor (a page that shows one of
// several sentences in turn keeps the tallest one's room, so that nothing under it moves).
float wrapped_height(std::string_view text);
// A sentence saying what went wrong, wrapped as above, in `colour` (the palette's error); nothing
// when `text` is empty. Every window shows its errors this way.
void error_text(ImU32 colour, std::string_view text);
// A hint or a note (what to click, why a button is off), wrapped as above, in the theme's dim text
// colour.
void hint_text(std::string_view text);
// The height text_wrapped_unformatted would take at this wrap width.
float wrapped_text_height(std::string_view text, float width);

// SameLine() when an item `next_width` wide still fits on the current line, else nothing (the
// next item starts a new line): rows of buttons that flow instead of running off the edge. Returns
// whether it fits.
bool same_line_if_fits(float next_width);
// The width ImGui::Button gives `label`: its text and the frame's padding on both sides.
float button_width(const char* label);

}  // namespace attnlab::gui
