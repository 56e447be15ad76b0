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

bool inputs_column_hidden(const ViewSettings& view, const LayoutUi& layout) { return view.inputs_hidden || layout.inputs_auto_folded; }

void toggle_inputs_column(ViewSettings& view, LayoutUi& layout) {
  if (layout.inputs_auto_folded) {
    // The user asked for the column presenter mode had folded: stop folding it (View menu turns it back on).
    view.inputs_auto_fold = false;
    layout.inputs_auto_folded = false;
    view.inputs_hidden = false;
    return;
  }
  view.inputs_hidden = !view.inputs_hidden;
}

}  // namespace attnlab::gui
