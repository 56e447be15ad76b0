// What widgets are drawn with, as the app's state decides it: a heatmap's style (colours, numbers in
// cells, the selected cell, the result's version, the renderer), a stage's colormap and range.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"
#include "gui/widgets/heatmap.hpp"

#include <utility>

namespace attnlab::gui {

HeatmapStyle heatmap_style(const AppState& state, const Services& services);

// The colormap a stage is drawn with: the chosen diverging map for signed stages, the chosen
// sequential one otherwise (falling back to the defaults when a name is unknown).
const Colormap& stage_colormap(const ViewSettings& view, Stage stage);
// The colour range of a stage of the result: weights [0, 1], saturation [0, 0.25] (fixed, so that
// toggling scaling changes colours, not the scale), the others their finite range.
std::pair<double, double> stage_range(const Results& results, Stage stage);

// Keeps where a heatmap of `stage` was drawn this frame (AppState::pipeline.drawn: the last of each
// stage, which the automatic layout, the tests and the screenshot check read).
void keep_drawn(AppState& state, Stage stage, const HeatmapEvents& events);

}  // namespace attnlab::gui
