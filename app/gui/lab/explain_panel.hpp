// The "Explain a cell" tab: the arithmetic of the hovered cell, else the clicked one, worked the way
// the course texts do it by hand (engine/attention/explain.hpp).
#pragma once

#include "gui/lab/lab_ui.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the shown result and the document it was computed from; changes nothing.
void draw_explain_panel(const ViewContext& ctx, const PipelineUi& pipeline);

}  // namespace attnlab::gui
