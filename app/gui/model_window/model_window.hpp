// The Model window (model_window.cpp): a model's tokens, every head's map, the enlarged head, the
// next tokens; the registry (shell/panel_registry.cpp) shows it as a floating window.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

namespace attnlab::gui {

void draw_model_window(AppState& state, Services& services);

}  // namespace attnlab::gui
