// Where the lab's heatmaps were drawn (lab_ui.hpp).
#include "gui/lab/lab_ui.hpp"

namespace attnlab::gui {

void keep_drawn(PipelineUi& pipeline, Stage stage, const HeatmapEvents& events) {
  pipeline.drawn[static_cast<size_t>(stage)] = events.drawn;
}

}  // namespace attnlab::gui
