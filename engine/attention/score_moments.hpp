// Moments of a run of scores, mergeable chunk by chunk: what every path's global statistics are
// made of (attention/stats.hpp). Plain C++ with no Eigen, because the CPU's vectorized kernels,
// compiled once per instruction set (cpu/softmax_kernels.hpp), fill it too.
#pragma once

#include <cstdint>
#include <limits>

namespace attnlab {

// Moments of a run of float scores: count, mean and the sum of squared deviations m2, merged
// chunk by chunk with Chan et al.'s pairwise update (each chunk two-pass around its own mean), so
// the std stays accurate when the spread is tiny next to the mean (scores of 8e8 ± 64), where
// E[x²] − mean² cancels. min/max are exact.
struct ScoreMoments {
  long long count = 0;
  double mean = 0;
  double m2 = 0;
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();
  bool nan = false;  // some score was NaN (an overflowed dot product)

  void merge(const ScoreMoments& o) {
    if (o.count == 0) {
      nan = nan || o.nan;
      return;
    }
    if (count == 0) {
      const bool was_nan = nan;
      *this = o;
      nan = nan || was_nan;
      return;
    }
    const double n = static_cast<double>(count + o.count);
    const double delta = o.mean - mean;
    const double wa = static_cast<double>(count) / n, wb = static_cast<double>(o.count) / n;
    mean = mean * wa + o.mean * wb;
    m2 = m2 + o.m2 + delta * delta * static_cast<double>(count) * wb;
    count += o.count;
    min = o.min < min ? o.min : min;
    max = o.max > max ? o.max : max;
    nan = nan || o.nan;
  }

  // Adds s[0..len) in chunks, as the CPU's vectorized kernels do (cpu/softmax_kernels.hpp):
  // the plain loop, for paths that are not the CPU's own (the GPU's scores read back).
  void add(const float* s, std::int64_t len);
};

}  // namespace attnlab
