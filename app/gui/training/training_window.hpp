// The Training window (training_window.cpp): the form, the run's controls, the loss curve beside the
// heads' maps; the registry (shell/panel_registry.cpp) shows it as a floating window.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_training_window(AppState& state, Services& services);

}  // namespace attnlab::gui
