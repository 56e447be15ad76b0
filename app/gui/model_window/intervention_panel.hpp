// The Model window's "Knock out heads" column (docs/MODELS.md, "Interventions"): the heads knocked out
// and how, the lab's edit put back, the next tokens as the model is and changed side by side, the
// logit lens, a second text compared and heads patched from it, the attention sinks.
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

void draw_intervention_panel(const ViewContext& ctx, ModelUi& m);

}  // namespace attnlab::gui
