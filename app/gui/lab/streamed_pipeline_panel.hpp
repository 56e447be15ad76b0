// The pipeline of a document too large for dense stages (n = m = 100 000): the progress of its
// background streaming run, then the weights downsampled to pixels, the output and what was
// measured, and a plain statement of what was not kept, and why.
#pragma once

#include "gui/lab/lab_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// A streaming run's progress bar and Cancel (CancelStreaming), or a cancelled run's "Compute it"
// (StartStreaming). True when there is nothing else to draw yet.
bool draw_compute_progress(const ViewContext& ctx, Commands& out);
// The pipeline of a streamed result (no n × m stages: the weights downsampled, the output).
void draw_streaming_view(const ViewContext& ctx, PipelineUi& pipeline, LayoutUi& layout, Commands& out);

}  // namespace attnlab::gui
