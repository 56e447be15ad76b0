// See view_style.hpp.
#include "gui/state/view_style.hpp"

namespace attnlab::gui {

HeatmapStyle heatmap_style(const ViewContext& ctx, CellRef selected) {
  HeatmapStyle style;
  style.palette = palette(ctx.view);
  style.numbers_in_cells = ctx.view.numbers_in_cells;
  style.selected = selected;
  style.version = ctx.results.result_version;
  style.renderer = ctx.services.renderer;
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

}  // namespace attnlab::gui
