// The Training window (training_window.cpp): the form, the run's controls, the loss curve beside the
// heads' maps; the registry (shell/panel_registry.cpp) shows it as a floating window.
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"
#include "gui/training/training_ui.hpp"

namespace attnlab::gui {

// Reads the view settings and the platform's traits; changes its TrainingUi; a file to save the model
// into and the Model window opened on it are asked for as commands.
void draw_training_window(const ViewContext& ctx, TrainingUi& t, Commands& out);

}  // namespace attnlab::gui
