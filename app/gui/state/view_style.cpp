// See view_style.hpp.
#include "gui/state/view_style.hpp"

namespace attnlab::gui {

HeatmapStyle heatmap_style(const AppState& state, const Services& services) {
  HeatmapStyle style;
  style.palette = palette(state.view);
  style.numbers_in_cells = state.view.numbers_in_cells;
  style.selected = state.pipeline.selected;
  style.version = state.results.result_version;
  style.renderer = services.renderer;
  return style;
}

const Colormap& stage_colormap(const ViewSettings& view, Stage stage) {
  const bool div = stage_is_signed(stage);
  const std::string& name = div ? view.diverging : view.sequential;
  for (const Colormap& m : colormaps()) {
    if (m.name == name) return m;
  }
  return colormap(div ? kDefaultDiverging : kDefaultSequential);
}

std::pair<double, double> stage_range(const Results& results, Stage stage) {
  if (stage == Stage::Weights) return {0.0, 1.0};
  if (stage == Stage::Saturation) return {0.0, 0.25};
  return results.ranges[static_cast<size_t>(stage)];  // computed once per result (recompute_if_needed)
}

void keep_drawn(AppState& state, Stage stage, const HeatmapEvents& events) {
  state.pipeline.drawn[static_cast<size_t>(stage)] = events.drawn;
}

}  // namespace attnlab::gui
