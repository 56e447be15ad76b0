// The scores' statistics without the products (all_score_moments: the Gram matrices QᵀQ and KᵀK)
// against a direct sum over every cell in long double, on random shapes, offsets, huge and tiny
// values; and the streaming path's statistics under every mask, whose min and max cover the
// visible cells.
#include "engine/attention/stats.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"
#include "support/attention_bounds.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace attnlab {
namespace {

// γ_n for double arithmetic: the relative error bound of an n-term double sum in any order.
double gamma_double(double n) {
  const double x = n * 0x1p-53;
  return x / (1 - x);
}

// The exact mean and sum of squared deviations of every score q_i·k_j, in long double; and the
// magnitudes the Gram route's rounding is bounded by: Σ_l mean|q_l|·mean|k_l| for the mean and
// Σ_ij (Σ_l (|q_il| + |q̄_l|)(|k_jl| + |k̄_l|))² for the squared deviations (the centered rows are
// at most that large).
struct DirectMoments {
  long double mean = 0, m2 = 0;
  double mean_scale = 0, m2_scale = 0;
};

DirectMoments direct_moments(const Matrix& Q, const Matrix& K) {
  const Eigen::Index n = Q.rows(), m = K.rows(), d = Q.cols();
  std::vector<long double> scores;
  scores.reserve(static_cast<size_t>(n * m));
  long double sum = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      long double s = 0;
      for (Eigen::Index l = 0; l < d; ++l) s += static_cast<long double>(Q(i, l)) * K(j, l);
      scores.push_back(s);
      sum += s;
    }
  }
  DirectMoments out;
  out.mean = sum / static_cast<long double>(scores.size());
  for (long double s : scores) out.m2 += (s - out.mean) * (s - out.mean);
  std::vector<double> q_abs(static_cast<size_t>(d)), k_abs(static_cast<size_t>(d)), q_mean(static_cast<size_t>(d)),
      k_mean(static_cast<size_t>(d));
  for (Eigen::Index l = 0; l < d; ++l) {
    const auto L = static_cast<size_t>(l);
    q_abs[L] = Q.col(l).cast<double>().cwiseAbs().mean();
    k_abs[L] = K.col(l).cast<double>().cwiseAbs().mean();
    q_mean[L] = std::abs(Q.col(l).cast<double>().mean());
    k_mean[L] = std::abs(K.col(l).cast<double>().mean());
    out.mean_scale += q_abs[L] * k_abs[L];
  }
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      double t = 0;
      for (Eigen::Index l = 0; l < d; ++l) {
        const auto L = static_cast<size_t>(l);
        t += (std::abs(Q(i, l)) + q_mean[L]) * (std::abs(K(j, l)) + k_mean[L]);
      }
      out.m2_scale += t * t;
    }
  }
  return out;
}

// all_score_moments against the direct sums: mean within 4·γ of its magnitudes, the squared
// deviations within 16·γ of theirs (Gram entries, two products and a sum of d² terms, each a
// double sum of at most n + m + d² terms).
void expect_gram_moments(const Matrix& Q, const Matrix& K, const std::string& what) {
  SCOPED_TRACE(what);
  const ScoreMoments g = all_score_moments(Q, K);
  const DirectMoments ref = direct_moments(Q, K);
  const double terms = static_cast<double>(Q.rows() + K.rows() + Q.cols() * Q.cols());
  EXPECT_EQ(g.count, static_cast<long long>(Q.rows() * K.rows()));
  EXPECT_LE(std::abs(g.mean - static_cast<double>(ref.mean)), 4 * gamma_double(terms) * ref.mean_scale + 1e-300)
      << g.mean << " vs " << static_cast<double>(ref.mean);
  EXPECT_LE(std::abs(g.m2 - static_cast<double>(ref.m2)), 16 * gamma_double(terms) * ref.m2_scale + 1e-300)
      << g.m2 << " vs " << static_cast<double>(ref.m2);
  EXPECT_GE(g.m2, 0.0);
}

TEST(Stats, GramMomentsEqualADirectSumOverEveryCell) {
  std::mt19937 rng(3);
  const std::vector<std::array<Eigen::Index, 3>> shapes{{1, 1, 1}, {1, 7, 3}, {9, 1, 5}, {17, 33, 8}, {64, 40, 70},
                                                        {130, 257, 16}};
  for (const auto& sh : shapes) {
    const Matrix Q = test::random_matrix(rng, sh[0], sh[2]), K = test::random_matrix(rng, sh[1], sh[2]);
    expect_gram_moments(Q, K, "N(0, 1), n=" + std::to_string(sh[0]) + " m=" + std::to_string(sh[1]) +
                                  " d=" + std::to_string(sh[2]));
    // Far from zero: the mean dwarfs the spread, which the centered Gram matrices keep.
    expect_gram_moments((Q.array() + 100.0f).matrix(), (K.array() - 30.0f).matrix(), "offset");
    // Huge (scores near 1e36, within float32) and tiny (products below float's smallest normal).
    expect_gram_moments(Q * 1e17f, K * 1e17f, "huge");
    expect_gram_moments(Q * 1e-20f, K * 1e-20f, "tiny");
  }
  // A constant score: zero spread, exactly.
  const Matrix ones = Matrix::Constant(5, 3, 1.0f);
  EXPECT_EQ(all_score_moments(ones, ones).m2, 0.0);
}

// The streaming path's statistics under every mask, against the dense path (its scores' mean, std
// and count over every cell; min and max over the visible cells, MomentStats::range_count of them)
// and, for the mean and std, against the direct sum.
TEST(Stats, StreamedStatisticsUnderEveryMaskAndScale) {
  std::mt19937 rng(5);
  for (MaskKind kind : test::all_mask_kinds()) {
    for (float scale : {1.0f, 1e17f}) {
      Problem p;
      p.Q = test::random_matrix(rng, 70, 8, scale);
      p.K = test::random_matrix(rng, 300, 8, scale);
      p.V = test::random_matrix(rng, 300, 3);
      p.options.mask = test::random_mask(rng, kind, 70, 300);
      SCOPED_TRACE(test::describe(p) + ", scale " + std::to_string(scale));
      const Result dense = compute_cpu(p), streamed = compute_streaming_cpu(p);
      const test::AttentionBounds b = test::attention_bounds(p, dense);
      const MomentStats want = test::expected_score_stats(p, dense, true);
      test::expect_stats_within(want, streamed.stats.scores, b.scores_stat, "scores");
      EXPECT_EQ(streamed.stats.scores.range_count, p.options.mask.visible_cells(70, 300));
      test::expect_stats_within(dense.stats.logits, streamed.stats.logits, b.logits_stat, "logits");
      const DirectMoments ref = direct_moments(p.Q, p.K);
      const double count = 70.0 * 300.0, terms = 70 + 300 + 64;
      EXPECT_LE(std::abs(streamed.stats.scores.mean - static_cast<double>(ref.mean)),
                4 * gamma_double(terms) * ref.mean_scale + b.scores_stat);
      const double variance = streamed.stats.scores.std * streamed.stats.scores.std;
      EXPECT_LE(std::abs(variance - static_cast<double>(ref.m2) / count),
                (16 * gamma_double(terms) * ref.m2_scale + 2 * b.scores_stat * std::sqrt(ref.m2_scale * count)) / count);
      // The note appears exactly when the min and max leave cells out.
      EXPECT_EQ(score_range_note(streamed).empty(), streamed.stats.scores.range_count == streamed.stats.scores.count);
      EXPECT_TRUE(score_range_note(dense).empty());
    }
  }
}

// Scores whose float32 sum could overflow: the streaming path multiplies every tile for the
// statistics, so that they see each ±∞ as the dense path does.
TEST(Stats, ScoresNearFloatsLimitKeepTheDensePathsStatistics) {
  std::mt19937 rng(7);
  Problem p;
  p.Q = test::random_matrix(rng, 40, 4, 1.0f);
  p.K = test::random_matrix(rng, 200, 4, 1.0f);
  p.V = test::random_matrix(rng, 200, 2);
  p.Q.row(3).setConstant(1e20f);
  p.K.row(150).setConstant(1e20f);  // one score of 4e40: +∞ in float32, and blocked for row 3
  p.options.mask.kind = MaskKind::Causal;
  const Result dense = compute_cpu(p), streamed = compute_streaming_cpu(p);
  EXPECT_TRUE(std::isinf(dense.stats.scores.max));
  const test::AttentionBounds b = test::attention_bounds(p, dense);
  test::expect_stats_within(test::expected_score_stats(p, dense, true), streamed.stats.scores, b.scores_stat, "scores");
  EXPECT_EQ(streamed.stats.scores.mean, dense.stats.scores.mean);  // +∞ both
}

}  // namespace
}  // namespace attnlab
