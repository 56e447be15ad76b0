// The status bar: backend, last recompute time, frame time, sizes, and the last error in place.
#pragma once

#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_status_bar(AppState& state, Services& services, float height);

}  // namespace attnlab::gui
