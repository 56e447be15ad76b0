// Pieces shared by the dense (cpu/dense.cpp) and streaming (cpu/streaming.cpp) CPU paths, and by
// the GPU backend's scores (ScoreOverflowGuard).
#include "engine/cpu/cpu_internal.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

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

Stats stats_from_moments(const kernels::ScoreMoments& all, const kernels::ScoreMoments& visible, double divisor) {
  Stats st;
  const auto fill = [](MomentStats& out, const kernels::ScoreMoments& in, double d) {
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

float fast_inverse_divisor(double divisor) {
  const float c = static_cast<float>(1.0 / divisor);
  return std::isnormal(c) ? c : 0.0f;
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

ScoreOverflowGuard::ScoreOverflowGuard(const Problem& p) : p_(&p) {
  if (p.Q.size() == 0 || p.K.size() == 0) return;
  const double dk = static_cast<double>(p.Q.cols());
  // Every partial sum of d_k products, in any order and with or without fused multiply-adds, is
  // at most Σ|q·k| · (1 + 2^−24)^(d_k + 1) ≤ Σ|q·k| / (1 − (d_k + 1)·2^−24) in magnitude.
  risk_ = std::max(0.0, static_cast<double>(std::numeric_limits<float>::max()) * (1.0 - (dk + 1) * 0x1p-24));
  k_max_ = p.K.cwiseAbs().maxCoeff();
  active_ = static_cast<double>(p.Q.cwiseAbs().maxCoeff()) * k_max_ * dk >= risk_;
  if (active_) {
    key_max_.resize(static_cast<size_t>(p.K.rows()));
    for (Eigen::Index j = 0; j < p.K.rows(); ++j) key_max_[static_cast<size_t>(j)] = p.K.row(j).cwiseAbs().maxCoeff();
  }
}

Eigen::Index ScoreOverflowGuard::apply(Eigen::Index i, Eigen::Index j0, Eigen::Index j1, float* s) const {
  if (!active_) return 0;
  const Eigen::Index dk = p_->Q.cols();
  const float* q = p_->Q.row(i).data();
  const double q_max = p_->Q.row(i).cwiseAbs().maxCoeff(), dkd = static_cast<double>(dk);
  if (q_max * k_max_ * dkd < risk_) return 0;
  Eigen::Index redone = 0;
  for (Eigen::Index j = j0; j < j1; ++j) {
    if (q_max * key_max_[static_cast<size_t>(j)] * dkd < risk_) continue;
    const float* k = p_->K.row(j).data();
    double exact = 0, magnitude = 0;
    for (Eigen::Index l = 0; l < dk; ++l) {
      const double term = static_cast<double>(q[l]) * static_cast<double>(k[l]);
      exact += term;
      magnitude += std::fabs(term);
    }
    if (magnitude < risk_) continue;
    constexpr float inf = std::numeric_limits<float>::infinity();
    s[j - j0] = fits_float(exact) ? static_cast<float>(exact) : exact > 0 ? inf : -inf;
    ++redone;
  }
  return redone;
}

}  // namespace detail

}  // namespace attnlab
