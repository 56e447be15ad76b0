// One head's causal attention weights as a small map of coloured cells: the Model window's grid and
// enlarged head, and the Training window's maps. A map larger than `blocks` cells a side shows each
// block's mean; cells above the diagonal (blocked by the causal mask) are dark.
#pragma once

#include "engine/model/causal_weights.hpp"
#include "engine/figures/colormap.hpp"

#include <imgui.h>

#include <utility>

namespace attnlab::gui {

// Draws A (n × n, as a forward keeps it) into a square of side `side` at `at` with at most
// `blocks` cells a side. A block whose mean is not finite (a diverged model's attention) is drawn
// in `not_finite`. Returns the cell under the mouse, in A's indices, when the window is hovered;
// (−1, −1) otherwise.
std::pair<int, int> draw_attention_map(const model::CausalWeights& A, ImVec2 at, float side, int blocks, const Colormap& map, ImU32 not_finite);

}  // namespace attnlab::gui
