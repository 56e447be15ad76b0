// The pipeline: scores → logits → weights → output side by side, each with its formula written with
// the current numbers, a colour bar, and clickable cells; a streamed result's own view instead
// (streamed_pipeline_panel.hpp), and a streaming run's progress above either.
#pragma once

#include "gui/lab/lab_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the shown result; keeps where each stage was drawn and what the mouse is over or clicked
// (PipelineUi), and what room its numbers need for the host's layout next frame (LayoutUi). A click
// focuses the Explain tab; a shift-click (or any click with a custom mask) on a current result
// blocks the cell (an edit); a heatmap's right-click menu is handed on (StageMenu).
void draw_pipeline_panel(const ViewContext& ctx, PipelineUi& pipeline, LayoutUi& layout, Commands& out);

}  // namespace attnlab::gui
