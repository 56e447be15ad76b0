// The Model window's "Knock out" column (docs/MODELS.md, "Interventions"): the heads knocked out and
// how, the next tokens as the model is and with them out side by side, and the logit lens.
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

void draw_intervention_panel(const ViewContext& ctx, ModelUi& m);

}  // namespace attnlab::gui
