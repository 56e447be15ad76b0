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
  const int span = std::max(5, n / 10);
  if (n < 4 * span) return pc;
  // Prefix sums: the mean loss of the `span` points ending at i, for every i ≥ span − 1.
  std::vector<double> prefix(static_cast<std::size_t>(n) + 1, 0.0);
  for (int i = 0; i < n; ++i) prefix[static_cast<std::size_t>(i) + 1] = prefix[static_cast<std::size_t>(i)] + points[static_cast<std::size_t>(i)].loss;
  const auto mean_ending = [&](int i) {
    return (prefix[static_cast<std::size_t>(i) + 1] - prefix[static_cast<std::size_t>(i + 1 - span)]) / span;
  };
  const double first = mean_ending(span - 1), last = mean_ending(n - 1);
  double best = 0;
  int best_end = -1;
  // The window from point i − span to point i: the average before it against the average at its end.
  for (int i = 2 * span - 1; i < n; ++i) {
    const double fall = mean_ending(i - span) - mean_ending(i);
    if (fall > best) best = fall, best_end = i;
  }
  if (best_end < 0 || first <= last) return pc;
  pc.found = true;
  pc.first_step = points[static_cast<std::size_t>(best_end - span)].step;
  pc.last_step = points[static_cast<std::size_t>(best_end)].step;
  pc.loss_before = mean_ending(best_end - span);
  pc.loss_after = mean_ending(best_end);
  pc.share = std::min(1.0, best / (first - last));
  return pc;
}

}  // namespace attnlab::gui
