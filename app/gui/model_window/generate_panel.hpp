// The Model window's next-token column (generate_panel.cpp): the temperature slider, the bars before
// and after temperature, Generate and Stop; and what the chips show of a written token.
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/view_context.hpp"

#include <cstdint>

namespace attnlab::gui {

void draw_generate_panel(const ViewContext& ctx, ModelUi& m);
// Whether the model wrote the token at `position` (the chips mark it).
bool written_by_model(const ModelUi& m, std::int64_t position);
// Hovering a written token's chip: its draw, with the candidates it was drawn from.
void draw_drawn_token_tooltip(const ModelUi& m, std::int64_t position);

}  // namespace attnlab::gui
