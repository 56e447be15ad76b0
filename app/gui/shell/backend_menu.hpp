// The Backend menu (CPU, GPU or auto) and the switch it makes, also used by `gui --backend`.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_backend_menu(AppState& state, Services& services);

// Switches the compute backend. GPU needs the GL 4.3 context current on this thread (the window's);
// when it cannot be had the old backend stays and state.error says why (Gpu) or the CPU is used
// with a notice (Auto).
void select_backend(AppState& state, Services& services, BackendChoice choice);

}  // namespace attnlab::gui
