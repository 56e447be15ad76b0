// Error bounds derived from a problem's own magnitudes, for comparing two conforming computations
// of the same attention: the GPU against the CPU, the streaming path against the dense one, one
// BLAS kernel's order of summation against another's. Constants tuned on one machine fail on the
// next (another FMA choice, llvmpipe vector width or BLAS kernel); these hold on every machine
// that rounds as IEEE float32 allows, and fail only where an implementation is wrong beyond that.
//
// The model (Higham, "Accuracy and Stability of Numerical Algorithms", §3.1): a float32 sum of n
// products, in any order, with or without fused multiply-adds, is within γ_n · Σ|terms| of the
// exact sum, γ_n = n·u / (1 − n·u), u = 2⁻²⁴. Each of the two results is allowed that error, and
// the bounds carry it through the stages:
//   scores      ΔS = 2 γ_dk Σ_l |q_l k_l|
//   logits      ΔL = ΔS / (s·T) + 2u |L|
//   weights     softmax: the exp arguments x = L − max L differ by δ ≤ ΔL + 2u(|L| + |max L|), which
//               moves a_j by at most a_j (exp(|δ_j| + D) − 1), D = log Σ_k a_k exp(|δ_k|); each
//               implementation's exp is accurate to (3 + 2|x|) ulp (GLSL ES's requirement) and its
//               normalizing sum to γ_m. Sigmoid, sparsemax and hardmax have their own rules below.
//   output      ΔO = Σ_j Δa_j |V_j| + 2 γ_m Σ_j a_j |V_j|
//   diagnostics, heatmap pixels and statistics follow from Δa and ΔS.
// Weights below float's smallest normal may be flushed to zero by a GPU: 2⁻¹²⁶ per cell more.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/cpu/streaming.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace attnlab::test {

using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr double kUnitRoundoff = 0x1p-24;
constexpr double kSmallestNormal = 0x1p-126;

// γ_n: the relative error bound of an n-term float32 sum in any order.
inline double gamma_n(double n) {
  const double x = n * kUnitRoundoff;
  return x < 0.5 ? x / (1 - x) : 1.0;
}

// The relative error allowed to one implementation's exp(x): (3 + 2|x|) ulp (GLSL ES 3.x), plus
// the rounding of x = (s − max s)·c itself, 2u|x|. One ulp of float is 2u.
inline double exp_error(double x) { return (3 + 2 * std::abs(x)) * 2 * kUnitRoundoff + 2 * kUnitRoundoff * std::abs(x); }

// Per-cell (n × m, n × d_v) and per-row bounds on |a − b| between two results of one problem.
struct AttentionBounds {
  MatrixD scores, logits, weights, saturation, output;
  std::vector<double> max_weight, entropy, effective_keys, jacobian_norm_squared;
  double scores_stat = 0, logits_stat = 0;  // on the mean, std, min and max of scores and logits
};

// Row i's diagnostics' bounds from its weights' bounds (b.weights): max weight, entropy
// H = −Σ a log a, exp(H), and ‖diag(a) − a aᵀ‖²_F.
inline void row_diagnostic_bounds(const Result& ref, Eigen::Index i, double g_m, AttentionBounds& b) {
  const double u = kUnitRoundoff;
  const auto I = static_cast<size_t>(i);
  double H = 0, dH = 0, dJ2 = 0, J2 = 0, sum_sq = 0;
  for (Eigen::Index j = 0; j < ref.m; ++j) {
    const double a = ref.weights(i, j), bw = b.weights(i, j);
    b.max_weight[I] = std::max(b.max_weight[I], bw);
    const double t = std::max(a, bw);
    dH += bw * (std::abs(std::log(t)) + 1);
    if (a > 0) H -= a * std::log(a);
    dJ2 += 6 * bw * (a + bw);
    J2 += a * a * (1 - a) * (1 - a);
    sum_sq += a * a;
  }
  J2 += sum_sq * sum_sq;
  b.entropy[I] = dH + 2 * g_m * (H + 1) + 4 * u;
  b.effective_keys[I] = std::exp(H) * std::expm1(std::min(b.entropy[I], 700.0)) + 4 * u * std::exp(H);
  b.jacobian_norm_squared[I] = dJ2 + 4 * g_m * (J2 + 1);
}

// Bounds for comparing any result of `p` with `ref`, a dense result of the same problem
// (compute_cpu keeps every stage).
inline AttentionBounds attention_bounds(const Problem& p, const Result& ref) {
  const Eigen::Index n = ref.n, m = ref.m, dk = ref.d_k, dv = ref.d_v;
  const double D = ref.effective_temperature, u = kUnitRoundoff, g_m = gamma_n(static_cast<double>(m) + 2);
  const double g_k = gamma_n(static_cast<double>(dk) + 1);
  constexpr double inf = std::numeric_limits<double>::infinity();
  AttentionBounds b;
  b.scores.setZero(n, m);
  b.logits.setZero(n, m);
  b.weights.setZero(n, m);
  b.saturation.setZero(n, m);
  b.output.setZero(n, dv);
  b.max_weight.assign(static_cast<size_t>(n), 0);
  b.entropy.assign(static_cast<size_t>(n), 0);
  b.effective_keys.assign(static_cast<size_t>(n), 0);
  b.jacobian_norm_squared.assign(static_cast<size_t>(n), 0);
  std::vector<double> delta(static_cast<size_t>(m)), x(static_cast<size_t>(m));
  for (Eigen::Index i = 0; i < n; ++i) {
    double top = -inf;
    for (Eigen::Index j = 0; j < m; ++j) {
      double magnitude = 0;
      for (Eigen::Index l = 0; l < dk; ++l) magnitude += std::abs(static_cast<double>(p.Q(i, l)) * p.K(j, l));
      b.scores(i, j) = 2 * g_k * magnitude;
      const double L = ref.logits(i, j);
      b.logits(i, j) = std::isfinite(L) ? b.scores(i, j) / D + 2 * u * std::abs(L) : 0.0;
      if (!p.options.mask.is_blocked(i, j)) top = std::max(top, static_cast<double>(ref.scores(i, j)) / D);
    }
    // The exp arguments' differences, and D = log Σ a exp(|δ|) (their weighted spread).
    double spread = 0, mean_exp_error = 0;
    for (Eigen::Index j = 0; j < m; ++j) {
      const auto J = static_cast<size_t>(j);
      const double s = ref.scores(i, j) / D;
      if (p.options.mask.is_blocked(i, j) || !std::isfinite(s) || !std::isfinite(top)) {
        delta[J] = x[J] = 0;
        continue;
      }
      x[J] = s - top;
      delta[J] = b.scores(i, j) / D + 2 * u * (std::abs(s) + std::abs(top));
      spread += ref.weights(i, j) * std::exp(std::min(delta[J], 700.0));
      mean_exp_error += ref.weights(i, j) * exp_error(x[J]);
    }
    spread = spread > 0 ? std::log(spread) : 0;
    const double delta_max = *std::max_element(delta.begin(), delta.end());
    // Hardmax changes its winners only where another logit is within the arguments' error.
    bool hardmax_stable = true;
    if (p.options.normalizer == Normalizer::Hardmax) {
      for (Eigen::Index j = 0; j < m; ++j) {
        const auto J = static_cast<size_t>(j);
        if (!p.options.mask.is_blocked(i, j) && x[J] < 0 && -x[J] <= 2 * delta_max) hardmax_stable = false;
      }
    }
    double l2 = 0, abs_logits = 0;
    for (Eigen::Index j = 0; j < m; ++j) {
      l2 += delta[static_cast<size_t>(j)] * delta[static_cast<size_t>(j)];
      if (std::isfinite(ref.logits(i, j))) abs_logits += std::abs(ref.logits(i, j));
    }
    for (Eigen::Index j = 0; j < m; ++j) {
      const auto J = static_cast<size_t>(j);
      const double a = ref.weights(i, j), L = ref.logits(i, j), d = delta[J];
      double bound = 0;
      switch (p.options.normalizer) {
        case Normalizer::Softmax:
          bound = a * (std::expm1(std::min(d + spread, 700.0)) + 2 * (exp_error(x[J]) + mean_exp_error + g_m) + 4 * u);
          break;
        case Normalizer::Sigmoid:
          bound = a * (1 - a) * d * std::exp(std::min(d, 700.0)) + a * (2 * exp_error(std::isfinite(L) ? L : 0) + 4 * u);
          break;
        case Normalizer::Sparsemax:  // the simplex projection is 1-Lipschitz in the 2-norm
          bound = std::sqrt(l2) + 2 * g_m * (abs_logits + 1);
          break;
        case Normalizer::Hardmax: bound = hardmax_stable ? 4 * u * a : 1.0; break;
      }
      bound = std::min(1.0, bound) + kSmallestNormal;
      b.weights(i, j) = bound;
      b.saturation(i, j) = std::min(1.0, bound * (std::abs(1 - 2 * a) + bound) + 4 * u * a * (1 - a)) + kSmallestNormal;
      for (Eigen::Index k = 0; k < dv; ++k) {
        b.output(i, k) += (bound + 2 * g_m * a) * std::abs(static_cast<double>(p.V(j, k)));
      }
    }
    row_diagnostic_bounds(ref, i, g_m, b);
  }
  // Statistics move by at most the largest change of one cell (mean, std, min and max are
  // 1-Lipschitz in the largest cell), plus their own double rounding.
  b.scores_stat = b.scores.size() ? b.scores.maxCoeff() : 0;
  b.logits_stat = b.scores_stat / D;
  return b;
}

// Checks |a − b| ≤ bound cell by cell; a failure names the worst cell, both values and the bound.
// Infinities must match exactly (the same overflow on both sides).
inline void expect_within(const Matrix& a, const Matrix& b, const MatrixD& bound, const std::string& what) {
  ASSERT_EQ(a.rows(), b.rows()) << what;
  ASSERT_EQ(a.cols(), b.cols()) << what;
  ASSERT_EQ(a.rows(), bound.rows()) << what;
  double worst = 0;
  Eigen::Index wi = -1, wj = -1;
  for (Eigen::Index i = 0; i < a.rows(); ++i) {
    for (Eigen::Index j = 0; j < a.cols(); ++j) {
      const double x = a(i, j), y = b(i, j);
      if (!std::isfinite(x) || !std::isfinite(y)) {
        EXPECT_TRUE(x == y) << what << " (" << i << ", " << j << "): " << x << " vs " << y;
        continue;
      }
      const double excess = std::abs(x - y) / bound(i, j);
      if (excess > worst) {
        worst = excess;
        wi = i;
        wj = j;
      }
    }
  }
  EXPECT_LE(worst, 1.0) << what << ": cell (" << wi << ", " << wj << ") " << a(wi, wj) << " vs " << b(wi, wj)
                        << " differ by " << std::abs(static_cast<double>(a(wi, wj)) - b(wi, wj)) << ", bound "
                        << bound(wi, wj);
}

inline void expect_stats_within(const MomentStats& a, const MomentStats& b, double bound, const std::string& what) {
  EXPECT_EQ(a.count, b.count) << what;
  const auto near = [bound](double x, double y) {
    return x == y || (std::isnan(x) && std::isnan(y)) || std::abs(x - y) <= bound + 1e-12 * std::max(std::abs(x), 1.0);
  };
  EXPECT_TRUE(near(a.mean, b.mean)) << what << " mean " << a.mean << " vs " << b.mean << ", bound " << bound;
  EXPECT_TRUE(near(a.std, b.std)) << what << " std " << a.std << " vs " << b.std << ", bound " << bound;
  EXPECT_TRUE(near(a.min, b.min)) << what << " min " << a.min << " vs " << b.min << ", bound " << bound;
  EXPECT_TRUE(near(a.max, b.max)) << what << " max " << a.max << " vs " << b.max << ", bound " << bound;
}

// The scores' statistics a result of `p` reports, from the dense `ref`: a streamed result's min
// and max cover only the cells the mask leaves visible (0 when there are none; MomentStats::
// range_count), its mean, std and count every cell.
inline MomentStats expected_score_stats(const Problem& p, const Result& ref, bool streamed) {
  MomentStats s = ref.stats.scores;
  if (!streamed) return s;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  long long visible = 0;
  for (Eigen::Index i = 0; i < ref.n; ++i) {
    for (Eigen::Index j = 0; j < ref.m; ++j) {
      if (p.options.mask.is_blocked(i, j)) continue;
      lo = std::min(lo, ref.scores(i, j));
      hi = std::max(hi, ref.scores(i, j));
      ++visible;
    }
  }
  s.min = visible > 0 ? lo : 0.0;
  s.max = visible > 0 ? hi : 0.0;
  s.range_count = visible;
  return s;
}

// Every stage `other` holds (the dense stages when other.dense; the downsampled weights when it
// has a heatmap), its output, row diagnostics and statistics, against the dense `ref` of `p`.
inline void expect_result_within_bounds(const Problem& p, const Result& ref, const Result& other) {
  ASSERT_EQ(ref.n, other.n);
  ASSERT_EQ(ref.m, other.m);
  EXPECT_DOUBLE_EQ(ref.effective_temperature, other.effective_temperature);
  const AttentionBounds b = attention_bounds(p, ref);
  if (other.dense && other.scores.size() > 0) {
    expect_within(ref.scores, other.scores, b.scores, "scores");
    expect_within(ref.logits, other.logits, b.logits, "logits");
    expect_within(ref.weights, other.weights, b.weights, "weights");
    expect_within(ref.saturation, other.saturation, b.saturation, "saturation");
  }
  expect_within(ref.output, other.output, b.output, "output");
  ASSERT_EQ(ref.rows.size(), other.rows.size());
  for (size_t i = 0; i < ref.rows.size(); ++i) {
    const RowDiagnostics &x = ref.rows[i], &y = other.rows[i];
    SCOPED_TRACE("row " + std::to_string(i));
    EXPECT_EQ(x.fully_masked, y.fully_masked);
    EXPECT_EQ(x.padding, y.padding);
    EXPECT_EQ(x.scores_recomputed, y.scores_recomputed);
    EXPECT_LE(std::abs(x.max_weight - y.max_weight), b.max_weight[i]) << x.max_weight << " vs " << y.max_weight;
    // The saturated flag may differ only where the max weight is within its bound of 0.99.
    if (std::abs(x.max_weight - 0.99) > b.max_weight[i]) {
      EXPECT_EQ(x.saturated, y.saturated);
    }
    EXPECT_LE(std::abs(x.entropy - y.entropy), b.entropy[i]) << x.entropy << " vs " << y.entropy;
    EXPECT_LE(std::abs(x.effective_keys - y.effective_keys), b.effective_keys[i])
        << x.effective_keys << " vs " << y.effective_keys;
    const double ja = x.jacobian_norm, jb = y.jacobian_norm;
    EXPECT_LE(std::abs(ja * ja - jb * jb), b.jacobian_norm_squared[i]) << ja << " vs " << jb;
  }
  const MomentStats scores = expected_score_stats(p, ref, !other.dense);
  expect_stats_within(scores, other.stats.scores, b.scores_stat, "scores stats");
  EXPECT_EQ(scores.range_count, other.stats.scores.range_count) << "cells the scores' min and max cover";
  expect_stats_within(ref.stats.logits, other.stats.logits, b.logits_stat, "logits stats");
  if (!other.heatmap.empty()) {
    const Heatmap h = downsample_weights(ref.weights, other.heatmap.mean.rows(), other.heatmap.mean.cols());
    // A pixel's mean moves by at most its cells' mean bound (plus the float sum over its cells),
    // its max by at most their largest bound.
    const Heatmap hb = downsample_weights(b.weights.cast<float>(), h.mean.rows(), h.mean.cols());
    const double cells = std::ceil(static_cast<double>(ref.n) / h.mean.rows()) * std::ceil(static_cast<double>(ref.m) / h.mean.cols());
    const MatrixD mean_bound = hb.mean.cast<double>().array() + 2 * gamma_n(cells) * h.mean.cast<double>().array() + kSmallestNormal;
    expect_within(h.mean, other.heatmap.mean, mean_bound, "heatmap mean");
    expect_within(h.max, other.heatmap.max, hb.max.cast<double>().array() + kSmallestNormal, "heatmap max");
  }
}

}  // namespace attnlab::test
