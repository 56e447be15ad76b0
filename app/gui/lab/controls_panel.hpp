// Controls: √d_k scaling, temperature (log slider), rotary positions (RoPE: on/off, θ, a shift of
// every position), mask kind and parameter, normalizer.
#pragma once

#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the live document's options; each change is an edit of the catalogue (a drag ends with
// EndMerge, so one drag is one undo entry).
void draw_controls_panel(const ViewContext& ctx, Commands& out);

}  // namespace attnlab::gui
