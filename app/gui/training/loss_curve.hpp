// What the loss curve shows, worked out without ImGui (the Training window and the induction
// lesson draw it; tests check it): the steps binned into the plot's columns, where the loss fell
// fastest — the phase change of a model forming an induction head — and where the kind changes'
// labels go.
#pragma once

#include "gui/training/training_ui.hpp"

#include <vector>

namespace attnlab::gui {

// The points averaged into at most `columns` consecutive bins of equal step count (a long run on a
// narrow plot), each bin's mean step, loss and accuracy.
std::vector<TrainingPoint> bin_points(const std::vector<TrainingPoint>& points, int columns);

// The steepest cliff of the loss: the window of a tenth of the steps done (at least 5) from whose
// start to whose end the loss, averaged over that many steps around each point, fell the most, among
// those that fell by a tenth of the loss at least and after which the loss levelled off (the next
// window fell at most a third as much).
struct PhaseChange {
  bool found = false;    // at least 4 spans of points, and such a cliff
  int first_step = 0, last_step = 0;
  double loss_before = 0, loss_after = 0;  // the averaged loss at the window's two ends
  double share = 0;      // the window's fall as a share of the whole run's (first to last average)
  // The fall is sudden: over a third of the run's whole fall came in a tenth of its steps.
  bool sudden() const { return found && share >= 1.0 / 3.0; }
};
PhaseChange find_phase_change(const std::vector<TrainingPoint>& points);

// The loss where the run started and where it is now, each averaged over a twentieth of the points
// (one at least): what a sentence may say of the curve before a phase change is found. No points:
// both 0.
struct LossSoFar {
  double start = 0, now = 0;
  // The loss has come down by a fifth or more: off its plateau, whatever the phase-change finder says.
  bool falling() const { return start > 0 && now <= 0.8 * start; }
};
LossSoFar loss_so_far(const std::vector<TrainingPoint>& points);

// A kind change's label on the curve: its left edge and width in pixels, and the head it names.
struct ChangeLabel {
  float x = 0, width = 0;
  int layer = 0, head = 0;
};
// The row of each label, in the order given (the changes' order, so left to right): the lowest of
// `rows` rows (0 the lowest) in which it starts at least `gap` after that row's last label. Where no
// row has room, the label of the same head's earlier change gives way if it is the last in its row
// (the head's latest kind is the one to read), else this label is left out: −1, its marker line and
// its sentence under the curve still say it. Labels never overlap, however crowded the changes.
std::vector<int> place_change_labels(const std::vector<ChangeLabel>& labels, int rows, float gap);

}  // namespace attnlab::gui
