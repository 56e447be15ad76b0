// The loss curve's numbers; see loss_curve.hpp.
#include "gui/training/loss_curve.hpp"

#include <algorithm>

namespace attnlab::gui {

std::vector<TrainingPoint> bin_points(const std::vector<TrainingPoint>& points, int columns) {
  const std::size_t n = points.size();
  const std::size_t bins = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(1, columns)));
  std::vector<TrainingPoint> out;
  out.reserve(bins);
  for (std::size_t b = 0; b < bins; ++b) {
    const std::size_t i0 = b * n / bins, i1 = (b + 1) * n / bins;
    double step = 0, loss = 0, acc = 0;
    for (std::size_t i = i0; i < i1; ++i) step += points[i].step, loss += points[i].loss, acc += points[i].accuracy;
    const double c = static_cast<double>(i1 - i0);
    out.push_back({static_cast<int>(step / c + 0.5), static_cast<float>(loss / c), static_cast<float>(acc / c)});
  }
  return out;
}

PhaseChange find_phase_change(const std::vector<TrainingPoint>& points) {
  PhaseChange pc;
  const int n = static_cast<int>(points.size());
  const int span = std::max(5, n / 10), half = span / 2;
  if (n < 4 * span) return pc;
  // The loss averaged over the `span` points centred on i (one batch's loss is noisy).
  std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
  for (int i = 0; i < n; ++i) prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + points[static_cast<std::size_t>(i)].loss;
  const auto averaged = [&](int i) {
    const int a = std::max(0, i - half), b = std::min(n - 1, i + half);
    return (prefix[static_cast<std::size_t>(b) + 1] - prefix[static_cast<std::size_t>(a)]) / (b - a + 1);
  };
  const double first = averaged(half), last = averaged(n - 1 - half);
  double best = 0;
  int best_start = -1;
  // A cliff the loss has levelled off after (the window after it fell at most a third as much) and
  // that the chart shows (a tenth of the loss at least): while the loss still falls as it did, or
  // by batch noise, there is no phase change yet (at step 31 of 4000 the curve said one).
  for (int k = half; k + 2 * span <= n - 1 - half; ++k) {
    const double fall = averaged(k) - averaged(k + span);
    if (fall > best && fall >= 0.1 * averaged(k) && averaged(k + span) - averaged(k + 2 * span) <= fall / 3.0) best = fall, best_start = k;
  }
  if (best_start < 0 || first <= last) return pc;
  pc.found = true;
  pc.first_step = points[static_cast<std::size_t>(best_start)].step;
  pc.last_step = points[static_cast<std::size_t>(best_start + span)].step;
  pc.loss_before = averaged(best_start);
  pc.loss_after = averaged(best_start + span);
  pc.share = std::min(1.0, best / (first - last));
  return pc;
}

LossSoFar loss_so_far(const std::vector<TrainingPoint>& points) {
  LossSoFar out;
  if (points.empty()) return out;
  const std::size_t span = std::max<std::size_t>(1, points.size() / 20);
  for (std::size_t i = 0; i < span; ++i) {
    out.start += points[i].loss;
    out.now += points[points.size() - 1 - i].loss;
  }
  out.start /= static_cast<double>(span);
  out.now /= static_cast<double>(span);
  return out;
}

std::vector<int> place_change_labels(const std::vector<ChangeLabel>& labels, int rows, float gap) {
  std::vector<int> row_of(labels.size(), -1);
  if (rows <= 0) return row_of;
  std::vector<std::size_t> last(static_cast<std::size_t>(rows), labels.size());  // each row's last label
  const auto room = [&](std::size_t row, float x) {
    return last[row] == labels.size() || labels[last[row]].x + labels[last[row]].width + gap <= x;
  };
  for (std::size_t i = 0; i < labels.size(); ++i) {
    std::size_t row = 0;
    while (row < last.size() && !room(row, labels[i].x)) ++row;
    if (row == last.size()) {
      // No row has room: the same head's earlier label gives way where it ends its row; its start
      // had room there, and this one starts no further left.
      row = 0;
      while (row < last.size() && !(last[row] != labels.size() && labels[last[row]].layer == labels[i].layer &&
                                    labels[last[row]].head == labels[i].head && labels[last[row]].x <= labels[i].x)) {
        ++row;
      }
      if (row == last.size()) continue;
      row_of[last[row]] = -1;
    }
    row_of[i] = static_cast<int>(row);
    last[row] = i;
  }
  return row_of;
}

}  // namespace attnlab::gui
