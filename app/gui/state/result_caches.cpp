// The caches derived from a result (see result_caches.hpp).
#include "gui/state/result_caches.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace attnlab::gui {

std::pair<double, double> finite_range(const Matrix& M, const BlockGrid* blocked) {
  double lo = INFINITY, hi = -INFINITY;
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      const float v = M(i, j);
      if (!std::isfinite(v) || (blocked && (*blocked)(i, j))) continue;
      lo = std::min(lo, static_cast<double>(v));
      hi = std::max(hi, static_cast<double>(v));
    }
  }
  if (!(lo <= hi)) return {0.0, 1.0};
  return {lo, hi};
}

namespace {

// log₁₀ of each value; zeros become the range's bottom (they are hatched anyway).
Matrix log10_of(const Matrix& M, float floor_value) {
  Matrix L(M.rows(), M.cols());
  for (Eigen::Index k = 0; k < M.size(); ++k) {
    const float v = M.data()[k];
    L.data()[k] = v > 0 ? std::max(floor_value, std::log10(v)) : floor_value;
  }
  return L;
}

// The colour range of a log map: from the 1st percentile of the positive values to the largest.
std::pair<double, double> log_range(const Matrix& M) {
  std::vector<float> logs;
  logs.reserve(static_cast<size_t>(M.size()));
  for (Eigen::Index k = 0; k < M.size(); ++k) {
    if (M.data()[k] > 0) logs.push_back(std::log10(M.data()[k]));
  }
  if (logs.empty()) return {-1.0, 0.0};
  const auto k = static_cast<std::ptrdiff_t>(static_cast<double>(logs.size() - 1) * 0.01);
  std::nth_element(logs.begin(), logs.begin() + k, logs.end());
  const double lo = logs[static_cast<size_t>(k)];
  const double hi = *std::max_element(logs.begin(), logs.end());
  return {std::min(lo, hi - 0.5), hi};
}

}  // namespace

StreamedViews streamed_views(const Result& r) {
  StreamedViews v;
  const Eigen::Index n = r.output.rows(), max_rows = 1024;
  if (n <= max_rows) {
    v.output = r.output;
  } else {
    v.output = Matrix::Zero(max_rows, r.output.cols());
    for (Eigen::Index y = 0; y < max_rows; ++y) {
      const Eigen::Index a = pixel_first(y, n, max_rows), b = pixel_first(y + 1, n, max_rows);
      v.output.row(y) = r.output.middleRows(a, b - a).colwise().mean();
    }
  }
  const Heatmap& hm = r.heatmap;
  if (!hm.empty()) {
    v.max_range = log_range(hm.max);
    v.mean_range = log_range(hm.mean);
    v.log_max = log10_of(hm.max, static_cast<float>(v.max_range.first));
    v.log_mean = log10_of(hm.mean, static_cast<float>(v.mean_range.first));
    v.empty = (hm.max.array() == 0.0f).cast<std::uint8_t>();
  }
  return v;
}

}  // namespace attnlab::gui
