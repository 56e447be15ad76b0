// The Saturation tab: the a(1−a) heatmap beside every row's diagnostics, saturated and fully-masked
// rows marked, so switching √d_k scaling off at large d_k shows the collapse at a glance.
#pragma once

#include "gui/lab/lab_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the shown result; hovering and clicking a cell move the pipeline's hovered and selected
// cell; the map's right-click menu is handed on (StageMenu).
void draw_saturation_panel(const ViewContext& ctx, PipelineUi& pipeline, Commands& out);

}  // namespace attnlab::gui
