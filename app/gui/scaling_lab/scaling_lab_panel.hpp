// The Scaling lab window: Exercise 2.3.1 (Section 2.3) for any d_k, keys and trials. Scaled against
// unscaled: the std of the logits and the max softmax probability as line charts over d_k (log
// axis), and the histogram of the logits for one d_k, with a progress bar and Cancel while it runs.
#pragma once

#include "gui/scaling_lab/scaling_lab_ui.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// The form (Run starts a run of the lab's own; the shell advances it a slice per frame,
// advance_scaling), the last run's charts, table and histogram. Changes only the lab's state.
void draw_scaling_panel(const ViewContext& ctx, ScalingLabState& lab);

}  // namespace attnlab::gui
