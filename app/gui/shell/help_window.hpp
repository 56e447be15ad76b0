// The Help window (help_window.cpp): what the app shows and every keyboard shortcut. The lesson index
// under them is the lessons' (panels/lesson_text_view.hpp), drawn after this by the registry.
#pragma once

#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads only the symbols the font can draw; changes nothing.
void draw_help_window(const ViewContext& ctx);

}  // namespace attnlab::gui
