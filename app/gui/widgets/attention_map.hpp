// One head's causal attention weights as a small map of coloured cells: the Model window's grid and
// enlarged head, and the Training window's maps. A map larger than `blocks` cells a side shows each
// block's mean; cells above the diagonal (blocked by the causal mask) are dark.
#pragma once

#include "engine/model/causal_weights.hpp"
#include "engine/figures/colormap.hpp"

#include <imgui.h>

#include <string>
#include <utility>

namespace attnlab::gui {

// Draws A (n × n, as a forward keeps it) into a square of side `side` at `at` with at most
// `blocks` cells a side. A block whose mean is not finite (a diverged model's attention) is drawn
// in `not_finite`. Returns the cell under the mouse, in A's indices, when the window is hovered
// (also while an item in it is held); (−1, −1) otherwise. `id` names it in the layout record.
std::pair<int, int> draw_attention_map(const std::string& id, const model::CausalWeights& A, ImVec2 at, float side, int blocks,
                                       const Colormap& map, ImU32 not_finite);

// The ImGui label of head (l, h)'s map in a grid of heads: "L1H0 map".
std::string head_map_label(int l, int h);

// An invisible button over head (l, h)'s map in a grid, drawn at `at` with side `side`: a press
// and release on the map clicks it, as on any button, and the pointer over it makes it ImGui's
// hovered item. The cursor is left where it was. Returns whether it was clicked.
bool head_map_button(int l, int h, ImVec2 at, float side);

}  // namespace attnlab::gui
