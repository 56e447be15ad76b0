// What widgets are drawn with, as the app's state decides it: a heatmap's style (colours, numbers in
// cells, the selected cell, the result's version, the renderer), a stage's colormap and range.
#pragma once

#include "gui/state/view_context.hpp"
#include "gui/widgets/heatmap.hpp"

#include <utility>

namespace attnlab::gui {

// A heatmap's style this frame: the view's colours and numbers, the result's version, the renderer,
// and the cell `selected` outlined.
HeatmapStyle heatmap_style(const ViewContext& ctx, CellRef selected);

// The colormap a stage is drawn with: the chosen diverging map for signed stages, the chosen
// sequential one otherwise (falling back to the defaults when a name is unknown).
const Colormap& stage_colormap(const ViewSettings& view, Stage stage);
// The colour range of a stage of the result: weights [0, 1], saturation [0, 0.25] (fixed, so that
// toggling scaling changes colours, not the scale), the others their finite range.
std::pair<double, double> stage_range(const Results& results, Stage stage);

}  // namespace attnlab::gui
