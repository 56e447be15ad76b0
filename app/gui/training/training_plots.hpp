// What the Training window and the induction lesson draw a run with: the loss curve with accuracy
// and the kind-change markers, and the layers × heads maps on the probe sequence.
#pragma once

#include "gui/state/view_settings.hpp"
#include "gui/training/loss_curve.hpp"
#include "gui/training/training_ui.hpp"

#include <imgui.h>

#include <utility>

namespace attnlab::gui {

// The loss (left axis) and accuracy (right axis, 0 … 1) of every step so far in a box of `size`,
// the steps binned to the pixels; a dashed line at each settled kind change, labelled "L1H2"; and,
// when `phase` is found, its window shaded and labelled.
void draw_loss_curve(const ViewSettings& look, const TrainingView& view, ImVec2 size, const PhaseChange* phase = nullptr);

// Every head's map in a layers × heads grid filling `size` (at most), each labelled with its kind
// and score, the chosen head outlined; hovering shows a cell's tokens and weight. Each map is a
// head_map_button. With `one_layer`, only the chosen layer's row (a projector's turn). Returns the
// head clicked this frame, or {−1, −1}.
std::pair<int, int> draw_head_maps(const ViewSettings& look, const TrainingView& view, ImVec2 size, int chosen_layer, int chosen_head,
                                   bool one_layer = false);

// On a projector the layers take turns: "layer ◉ 0 ○ 1 (↑ ↓)", one button a layer, and ↑ ↓ while the
// current window (or one inside it) has the keyboard. Returns the layer chosen, `layer` where none was.
int choose_layer_line(int layer, int layers);

// The settled kind changes as lines of text ("L1H2 became an induction head at step 430").
void draw_kind_changes(const ViewSettings& look, const TrainingView& view, int most);

}  // namespace attnlab::gui
