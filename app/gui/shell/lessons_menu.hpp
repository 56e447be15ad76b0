// The Lessons menu: every built-in lesson in curriculum order, and the classroom walk-through.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_lessons_menu(AppState& state, Services& services);

}  // namespace attnlab::gui
