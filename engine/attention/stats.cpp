// The global statistics of scores and logits, once for every backend (attention/stats.hpp).
#include "engine/attention/stats.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

void ScoreMoments::add(const float* s, std::int64_t len) {
  // Chunks of the CPU kernels' length: per chunk the mean, then the squared deviations from it.
  constexpr std::int64_t kChunk = 1024;
  for (std::int64_t c0 = 0; c0 < len; c0 += kChunk) {
    const std::int64_t c1 = std::min(len, c0 + kChunk);
    ScoreMoments chunk;
    double sum = 0;
    for (std::int64_t j = c0; j < c1; ++j) {
      const float v = s[j];
      chunk.nan = chunk.nan || v != v;
      sum += static_cast<double>(v);
      chunk.min = std::min(chunk.min, v);
      chunk.max = std::max(chunk.max, v);
    }
    chunk.count = c1 - c0;
    chunk.mean = sum / static_cast<double>(chunk.count);
    for (std::int64_t j = c0; j < c1; ++j) {
      const double d = static_cast<double>(s[j]) - chunk.mean;
      chunk.m2 += d * d;
    }
    merge(chunk);
  }
}

Stats stats_from_moments(const ScoreMoments& all, const ScoreMoments& visible, double divisor) {
  Stats st;
  const auto fill = [](MomentStats& out, const ScoreMoments& in, double d) {
    out.count = in.count;
    if (in.count == 0) return;
    out.min = in.min / d;
    out.max = in.max / d;
    out.mean = in.mean / d;
    out.std = std::sqrt(std::max(0.0, in.m2 / static_cast<double>(in.count))) / d;
  };
  fill(st.scores, all, 1.0);
  fill(st.logits, visible, divisor);
  return st;
}

Stats dense_score_stats(const Matrix& scores, const Mask& mask, double divisor) {
  ScoreMoments all, visible;
  std::vector<float> run;
  for (Eigen::Index i = 0; i < scores.rows(); ++i) {
    const float* s = scores.row(i).data();
    all.add(s, scores.cols());
    run.clear();
    for (Eigen::Index j = 0; j < scores.cols(); ++j) {
      if (!mask.is_blocked(i, j)) run.push_back(s[j]);
    }
    visible.add(run.data(), static_cast<std::int64_t>(run.size()));
  }
  return stats_from_moments(all, visible, divisor);
}

}  // namespace attnlab
