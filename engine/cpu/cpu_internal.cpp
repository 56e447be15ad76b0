// Pieces shared by the dense (cpu/dense.cpp) and streaming (cpu/streaming.cpp) CPU paths.
#include "engine/cpu/cpu_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace detail {

// In 32 × 32 blocks that stay in L1: Eigen's element-by-element transpose of a large K was a
// visible share of the bench's time.
void transpose_into(const Matrix& K, Matrix& out) {
  const Eigen::Index m = K.rows(), d = K.cols();
  out.resize(d, m);
  constexpr Eigen::Index kBlock = 32;
  for (Eigen::Index i0 = 0; i0 < m; i0 += kBlock) {
    const Eigen::Index i1 = std::min(m, i0 + kBlock);
    for (Eigen::Index j0 = 0; j0 < d; j0 += kBlock) {
      const Eigen::Index j1 = std::min(d, j0 + kBlock);
      for (Eigen::Index j = j0; j < j1; ++j) {
        float* dst = out.data() + j * m;
        for (Eigen::Index i = i0; i < i1; ++i) dst[i] = K.data()[i * d + j];
      }
    }
  }
}

void visible_moments(const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s, Eigen::Index j0,
                     Eigen::Index j1, kernels::ScoreMoments& out) {
  if (mask.kind != MaskKind::Custom) {
    Eigen::Index first = 0, last = m;
    mask.visible_range(i, m, first, last);
    first = std::max(first, j0);
    last = std::min(last, j1);
    if (first < last) kernels::table().moments(s + (first - j0), last - first, out);
    return;
  }
  // Custom masks: the visible cells of the row gathered, then one run.
  std::vector<float> run;
  run.reserve(static_cast<size_t>(j1 - j0));
  for (Eigen::Index j = j0; j < j1; ++j) {
    if (!mask.blocked(i, j)) run.push_back(s[j - j0]);
  }
  kernels::table().moments(run.data(), static_cast<std::int64_t>(run.size()), out);
}

void normalizer_logits(Normalizer normalizer, const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s,
                       double divisor, double* x) {
  float top = -std::numeric_limits<float>::infinity();
  if (normalizer != Normalizer::Sigmoid) {
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!mask.is_blocked(i, j)) top = std::max(top, s[j]);
    }
  }
  const bool shift = std::isfinite(top);
  for (Eigen::Index j = 0; j < m; ++j) {
    if (mask.is_blocked(i, j)) x[j] = -kInf;
    else if (top == std::numeric_limits<float>::infinity()) x[j] = s[j] == top ? 0.0 : -kInf;
    // −∞ means "blocked" to the normalizers: a visible logit that overflowed (a tiny temperature)
    // stays the most negative finite double.
    else x[j] = std::max((shift ? static_cast<double>(s[j]) - top : static_cast<double>(s[j])) / divisor,
                         std::numeric_limits<double>::lowest());
  }
}

}  // namespace detail

}  // namespace attnlab
