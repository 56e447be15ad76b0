// The Help window (help_window.cpp): what the app shows, every keyboard shortcut (the registry draws
// the lessons' index under it).
#pragma once

#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads only the symbols the font can draw; changes nothing.
void draw_help_window(const ViewContext& ctx);

}  // namespace attnlab::gui
