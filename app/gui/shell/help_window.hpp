// The Help window (help_window.cpp): what the app shows, every keyboard shortcut, the lesson index.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_help_window(AppState& state, Services& services);

}  // namespace attnlab::gui
