// One head of the Model window drawn large (docs/MODELS.md, "The Model window"): the query tokens
// down the side and the key tokens along the top (turned upright when they are wider than a column),
// a colour scale, the cells its head score measured outlined as the evidence with the score and
// what it means, and the query, key and weight under the mouse. The grid's thumbnails share the
// tooltip.
#pragma once

#include "engine/figures/colormap.hpp"
#include "gui/model_window/model_ui.hpp"
#include "gui/state/view_context.hpp"

#include <imgui.h>

#include <string>
#include <vector>

namespace attnlab::gui {

// How the key tokens fit along the top of a map whose columns are `cell` pixels wide (KeyLabelLayout,
// head_link_ui.hpp).
KeyLabelLayout key_label_layout(const std::vector<std::string>& tokens, float cell);

// What the enlarged map says its score measured ("induction 0.93: the mean weight on the outlined
// cells, …"), for the chosen head of the run.
std::string evidence_caption(const model::HeadVerdict& verdict, int tokens, int repeat_rows);

// The hover tooltip's lines for cell (i, j) of head (layer, head) of the current run: the head and
// its kind, the query token, the key token and the weight, and the head's scores.
std::vector<std::string> cell_hover_lines(const ModelUi& m, int layer, int head, int i, int j);
// Draws that tooltip and records the cell as ModelUi::hover.
void show_cell_hover(ModelUi& m, int layer, int head, int i, int j);

// The colour scale of the maps on one line: "weight 0 ▬▬▬ 1", the bar `width` wide.
void draw_weight_scale(const Colormap& map, float width, ImU32 text);

// The chosen head, enlarged, filling the space left in the current window.
void draw_head_map(const ViewContext& ctx, ModelUi& m, const Colormap& map);

}  // namespace attnlab::gui
