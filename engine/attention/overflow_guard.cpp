// Scores whose float32 sum could overflow, recomputed in double (attention/overflow_guard.hpp).
#include "engine/attention/overflow_guard.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

ScoreOverflowGuard::ScoreOverflowGuard(const Problem& p, Magnitudes m) : p_(&p) {
  if (p.Q.size() == 0 || p.K.size() == 0) return;
  const double dk = static_cast<double>(p.Q.cols());
  // Every partial sum of d_k products, in any order and with or without fused multiply-adds, is
  // at most Σ|q·k| · (1 + 2^−24)^(d_k + 1) ≤ Σ|q·k| / (1 − (d_k + 1)·2^−24) in magnitude.
  risk_ = std::max(0.0, static_cast<double>(std::numeric_limits<float>::max()) * (1.0 - (dk + 1) * 0x1p-24));
  k_max_ = m.k;
  active_ = static_cast<double>(m.q) * k_max_ * dk >= risk_;
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

}  // namespace attnlab
