// The Model window (model_window.cpp): a model's tokens, every head's map, the enlarged head, the
// next tokens; the registry (shell/panel_registry.cpp) shows it as a floating window.
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the view settings and the platform's traits; changes its ModelUi (it polls the run in
// progress); a model opened or a head lifted into the lab is handed on as commands.
void draw_model_window(const ViewContext& ctx, ModelUi& m, Commands& out);

}  // namespace attnlab::gui
