// Where the lab's heatmaps were drawn, and the streamed map's choice (lab_ui.hpp).
#include "gui/lab/lab_ui.hpp"

namespace attnlab::gui {

void keep_drawn(PipelineUi& pipeline, Stage stage, const HeatmapEvents& events) {
  pipeline.drawn[static_cast<size_t>(stage)] = events.drawn;
}

bool shows_block_max(const PipelineUi& pipeline, std::uint64_t result_version) {
  return pipeline.block_choice_for != result_version || pipeline.block_max;
}

void choose_block_max(PipelineUi& pipeline, std::uint64_t result_version, bool block_max) {
  pipeline.block_max = block_max;
  pipeline.block_choice_for = result_version;
}

}  // namespace attnlab::gui
