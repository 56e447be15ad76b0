// The streaming path (tiles, online softmax) against the dense path where both fit: outputs,
// per-row diagnostics, statistics and the downsampled heatmap; the bench fast paths; the kernels.
#include "engine/attention/attention.hpp"
#include "engine/cpu/blas.hpp"
#include "engine/cpu/output_only.hpp"
#include "engine/cpu/softmax_kernels.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"
#include "support/attention_bounds.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

Mask make_mask(std::mt19937& rng, MaskKind kind, Eigen::Index n, Eigen::Index m) {
  Mask mask;
  mask.kind = kind;
  const auto pick = [&](Eigen::Index hi) { return test::uniform_int(rng, 0, static_cast<int>(hi)); };
  switch (kind) {
    case MaskKind::Padding:
    case MaskKind::Prefix: mask.param = pick(m); break;
    case MaskKind::Window: mask.param = 1 + pick(std::max(n, m) - 1); break;  // 1 .. max(n, m)
    case MaskKind::Custom:
      mask.blocked.resize(n, m);
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < m; ++j) mask.blocked(i, j) = pick(2) == 0 ? 1 : 0;
      }
      if (n >= 2) mask.blocked.row(0).setOnes();  // a fully masked row
      break;
    default: break;
  }
  return mask;
}

Problem make_problem(std::mt19937& rng, Eigen::Index n, Eigen::Index m, Eigen::Index dk, Eigen::Index dv,
                     MaskKind kind, float sigma = 1.0f) {
  Problem p;
  p.Q = test::random_matrix(rng, n, dk, sigma);
  p.K = test::random_matrix(rng, m, dk, sigma);
  p.V = test::random_matrix(rng, m, dv);
  p.options.mask = make_mask(rng, kind, n, m);
  return p;
}

using test::describe;

// Streaming against dense for one problem: everything the streaming path produces, within bounds
// derived from the problem's magnitudes (tests/support/attention_bounds.hpp).
void expect_streaming_equals_dense(const Problem& p, Eigen::Index hrows, Eigen::Index hcols) {
  SCOPED_TRACE(describe(p));
  const Result dense = compute_cpu(p);
  StreamingOptions so;
  so.heatmap_rows = hrows;
  so.heatmap_cols = hcols;
  const Result s = compute_streaming_cpu(p, so);
  EXPECT_FALSE(s.dense);
  EXPECT_EQ(s.scores.size(), 0);
  EXPECT_EQ(s.weights.size(), 0);
  ASSERT_FALSE(s.heatmap.empty());
  EXPECT_EQ(s.heatmap.mean.rows(), std::min(hrows, p.Q.rows()));
  EXPECT_EQ(s.heatmap.mean.cols(), std::min(hcols, p.K.rows()));
  test::expect_result_within_bounds(p, dense, s);
}

const std::vector<MaskKind> kKinds{MaskKind::None,   MaskKind::Causal, MaskKind::Padding,
                                   MaskKind::Prefix, MaskKind::Window, MaskKind::Custom};

// A fast path's output against compute_cpu's, within the output's bound for the problem.
void expect_output_within_bounds(const Problem& p, const Matrix& output) {
  const Result dense = compute_cpu(p);
  test::expect_within(dense.output, output, test::attention_bounds(p, dense).output, "output of " + describe(p));
}

TEST(Streaming, EqualsDenseAcrossMasksShapesAndTileBoundaries) {
  std::mt19937 rng(7);
  // Sizes on both sides of the 128-row and 512-key tiles, square and rectangular; from d = 1024
  // (d_k or d_v) the tiles have 256 rows.
  const std::vector<std::array<Eigen::Index, 4>> shapes{{1, 1, 1, 1},       {3, 5, 4, 2},       {127, 511, 8, 3},
                                                        {128, 512, 16, 16}, {129, 513, 5, 7},   {260, 40, 3, 2},
                                                        {20, 1100, 12, 1},  {257, 513, 1024, 3}, {520, 60, 2, 1030}};
  for (const auto& sh : shapes) {
    for (MaskKind kind : kKinds) {
      const Problem p = make_problem(rng, sh[0], sh[1], sh[2], sh[3], kind);
      expect_streaming_equals_dense(p, 1024, 1024);  // one pixel per cell
      expect_streaming_equals_dense(p, 7, 13);       // uneven blocks
    }
  }
}

TEST(Streaming, SharpRowsTemperatureAndNoScaling) {
  std::mt19937 rng(11);
  for (MaskKind kind : {MaskKind::None, MaskKind::Causal}) {
    Problem p = make_problem(rng, 70, 300, 16, 4, kind, 3.0f);  // large scores: the max moves a lot
    p.options.temperature = 0.05;
    expect_streaming_equals_dense(p, 16, 16);
    p.options.scale = false;
    p.options.temperature = 3.0;
    expect_streaming_equals_dense(p, 16, 16);
  }
}

TEST(Streaming, OtherNormalizersAreStreamedByRowBlocks) {
  std::mt19937 rng(13);
  for (Normalizer norm : {Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax}) {
    for (MaskKind kind : {MaskKind::None, MaskKind::Causal, MaskKind::Custom}) {
      Problem p = make_problem(rng, 37, 45, 6, 3, kind);
      p.options.normalizer = norm;
      expect_streaming_equals_dense(p, 10, 9);
    }
  }
}

TEST(Streaming, OverflowedScoresFallBackToTheExactRow) {
  std::mt19937 rng(17);
  Problem p = make_problem(rng, 70, 300, 4, 3, MaskKind::None);
  p.Q.row(5).setConstant(1e20f);  // Q·K overflows float: +inf and −inf scores
  p.K.row(260).setConstant(1e20f);
  expect_streaming_equals_dense(p, 32, 32);
  const Result s = compute_streaming_cpu(p);
  EXPECT_TRUE(s.output.allFinite());
}

TEST(Streaming, HugeLogitsAndTemperaturesBeyondFloat) {
  std::mt19937 rng(19);
  Problem p = make_problem(rng, 30, 70, 4, 3, MaskKind::Causal);
  p.options.temperature = 1e-30;  // logits around ±1e30
  expect_streaming_equals_dense(p, 8, 8);
  p.options.temperature = 1e-40;  // 1/(s·T) is not a float: the double path decides every row
  expect_streaming_equals_dense(p, 8, 8);
  p.options.temperature = 1e30;  // everything uniform
  expect_streaming_equals_dense(p, 8, 8);
}

TEST(Streaming, ACancelledRunThrowsAndAnUncancelledOneFinishes) {
  std::mt19937 rng(29);
  for (const Normalizer normalizer : {Normalizer::Softmax, Normalizer::Sparsemax}) {
    Problem p = make_problem(rng, 500, 400, 8, 3, MaskKind::Causal);
    p.options.normalizer = normalizer;
    std::atomic<bool> cancel{true};
    StreamingOptions options;
    options.cancel = &cancel;
    EXPECT_THROW(compute_streaming_cpu(p, options), Cancelled);
    // Cancelled from inside, part-way: the progress callback runs between tiles.
    cancel = false;
    options.progress = [&cancel](double fraction) {
      if (fraction > 0.2) cancel = true;
    };
    EXPECT_THROW(compute_streaming_cpu(p, options), Cancelled);
    cancel = false;
    options.progress = nullptr;
    const Result r = compute_streaming_cpu(p, options);
    EXPECT_TRUE(r.output.allFinite());
    EXPECT_EQ(r.rows.size(), 500u);
  }
}

TEST(Streaming, FullyMaskedRowsAreZeroAndFlagged) {
  std::mt19937 rng(23);
  Problem p = make_problem(rng, 9, 300, 4, 3, MaskKind::Padding);
  p.options.mask.param = 0;
  const Result s = compute_streaming_cpu(p);
  EXPECT_TRUE(s.output.isZero(0));
  for (const RowDiagnostics& d : s.rows) EXPECT_TRUE(d.fully_masked);
  EXPECT_EQ(s.stats.logits.count, 0);
  EXPECT_EQ(s.stats.scores.count, 9 * 300);
  expect_streaming_equals_dense(p, 4, 4);
}

TEST(Streaming, ScoresWhoseFloatSumIsNotANumberAreRecomputedLikeTheDensePath) {
  std::mt19937 rng(29);
  Problem p = make_problem(rng, 4, 5, 2, 2, MaskKind::None);
  p.Q.row(2) << 1e20f, 1e20f;
  p.K.row(3) << 1e20f, -1e20f;  // 1e40 − 1e40: ∞ − ∞ = NaN or +∞ in float32, exactly 0
  const Result dense = compute_cpu(p);
  const Result streamed = compute_streaming_cpu(p);
  EXPECT_EQ(dense.scores(2, 3), 0.0f);
  for (const Result* r : {&dense, &streamed}) {
    SCOPED_TRACE(r == &dense ? "dense" : "streaming");
    ASSERT_TRUE(r->output.allFinite());
    EXPECT_TRUE(r->rows[2].scores_recomputed);
    EXPECT_FALSE(r->rows[1].scores_recomputed);
  }
  expect_streaming_equals_dense(p, 4, 4);
  for (bool streaming : {false, true}) {
    EXPECT_TRUE(attention_output_cpu(p, streaming).isApprox(dense.output, 1e-6f)) << "bench path, streaming " << streaming;
  }
}

TEST(Streaming, ProgressRisesToOne) {
  std::mt19937 rng(31);
  const Problem p = make_problem(rng, 700, 300, 4, 2, MaskKind::Causal);
  StreamingOptions so;
  std::vector<double> seen;
  so.progress = [&](double f) { seen.push_back(f); };
  compute_streaming_cpu(p, so);
  ASSERT_FALSE(seen.empty());
  EXPECT_DOUBLE_EQ(seen.back(), 1.0);
  for (size_t i = 1; i < seen.size(); ++i) EXPECT_LE(seen[i - 1], seen[i]);
}

TEST(Forward, DenseAndStreamingOutputsEqualComputeCpu) {
  std::mt19937 rng(37);
  for (MaskKind kind : kKinds) {
    // Several dense strips (256 rows) with sub-strips (32 rows), and a wide m (32-row strips);
    // d_k or d_v ≥ 512 take the wide path (64-row leaves, 256-row groups in parallel; under a
    // causal mask with n = m the output is a triangular product).
    for (const auto& sh : std::vector<std::array<Eigen::Index, 4>>{{1, 1, 1, 1},
                                                                   {200, 300, 16, 8},
                                                                   {129, 65, 5, 3},
                                                                   {600, 700, 9, 4},
                                                                   {70, 5000, 3, 2},
                                                                   {300, 517, 512, 7},
                                                                   {257, 200, 5, 520},
                                                                   {1, 3, 600, 1},
                                                                   {600, 600, 520, 24},
                                                                   {130, 130, 3, 515}}) {
      const Problem p = make_problem(rng, sh[0], sh[1], sh[2], sh[3], kind);
      SCOPED_TRACE(describe(p));
      const Result ref = compute_cpu(p);
      const test::MatrixD bound = test::attention_bounds(p, ref).output;
      StageTimes t;
      test::expect_within(ref.output, attention_output_cpu(p, false, &t), bound, "dense fast path");
      EXPECT_FALSE(t.fused);
      EXPECT_GE(t.total_ms, t.scores_ms);
      test::expect_within(ref.output, attention_output_cpu(p, true, &t), bound, "streaming fast path");
      EXPECT_TRUE(t.fused);
    }
  }
}

// Without a mask at large d the stage is one product on OpenBLAS's own threads; afterwards every
// product runs in its calling thread again (inside OpenMP regions OpenBLAS's pool would
// oversubscribe the cores), and the output is the same as the OpenMP-split products'.
TEST(Forward, OneProductStagesGiveOpenBlasItsThreadsBack) {
  std::mt19937 rng(41);
  const Problem p = make_problem(rng, 300, 260, 600, 520, MaskKind::None);
  EXPECT_EQ(blas::threads(), 1);
  StageTimes t;
  const Matrix out = attention_output_cpu(p, false, &t);
  EXPECT_EQ(blas::threads(), 1);
  expect_output_within_bounds(p, out);
  Problem causal = p;
  causal.options.mask.kind = MaskKind::Causal;  // many products, OpenMP's threads: unchanged
  expect_output_within_bounds(causal, attention_output_cpu(causal, false, &t));
  EXPECT_EQ(blas::threads(), 1);
}

TEST(Heatmap, PixelsPartitionTheCells) {
  for (Eigen::Index cells : {1, 5, 64, 1000, 100000}) {
    for (Eigen::Index pixels : {1, 3, 7, 1024}) {
      if (pixels > cells) continue;
      EXPECT_EQ(pixel_first(0, cells, pixels), 0);
      EXPECT_EQ(pixel_first(pixels, cells, pixels), cells);
      for (Eigen::Index px = 0; px < pixels; ++px) {
        const Eigen::Index a = pixel_first(px, cells, pixels), b = pixel_first(px + 1, cells, pixels);
        ASSERT_LT(a, b);
        EXPECT_EQ(pixel_of(a, cells, pixels), px);
        EXPECT_EQ(pixel_of(b - 1, cells, pixels), px);
      }
    }
  }
}

TEST(Heatmap, DownsampleOfUniformWeightsIsUniform) {
  Matrix w = Matrix::Constant(10, 20, 0.05f);
  const Heatmap h = downsample_weights(w, 3, 6);
  EXPECT_EQ(h.mean.rows(), 3);
  EXPECT_EQ(h.mean.cols(), 6);
  EXPECT_LT((h.mean.array() - 0.05f).abs().maxCoeff(), 1e-7f);
  EXPECT_LT((h.max.array() - 0.05f).abs().maxCoeff(), 1e-7f);
}

TEST(Kernels, EveryVariantMatchesTheLibm) {
  std::vector<float> s(1000), p(1000);
  std::mt19937 rng(41);
  std::normal_distribution<float> dist(0.0f, 20.0f);
  for (float& v : s) v = dist(rng);
  s[3] = -std::numeric_limits<float>::infinity();
  s[4] = -1e30f;
  float mx = -1e30f;
  for (float v : s) mx = std::max(mx, v);
  for (int i = 0; i < kernels::variant_count(); ++i) {
    const kernels::Table& k = kernels::variant(i);
    SCOPED_TRACE(k.name);
    EXPECT_EQ(k.row_max(s.data(), 1000), mx);
    const kernels::ExpSums sums = k.exp_row(s.data(), p.data(), 1000, mx, 0.7f, true);
    double z = 0, t = 0, rest = 0, u2 = 0, u3 = 0;
    int ties = 0;
    for (size_t j = 0; j < s.size(); ++j) {
      const float xf = (s[j] - mx) * 0.7f;  // the kernel's argument, rounded as it rounds it
      const double x = xf;
      const double e = std::exp(x);
      EXPECT_NEAR(p[j], e, 3e-7 * e + 1e-37) << j;
      z += e;
      if (e > 0) t += e * x;
      if (xf == 0.0f) {
        ++ties;
      } else {
        rest += e;
        u2 += e * e;
        u3 += e * e * e;
      }
    }
    EXPECT_NEAR(sums.z, z, 1e-6 * z);
    EXPECT_NEAR(sums.t, t, 1e-5 * std::abs(t) + 1e-12);
    // The Jacobian's and the max weight's sums (cpu/online_row.hpp): float sums of positive terms.
    EXPECT_EQ(sums.ties, ties);
    EXPECT_NEAR(sums.rest, rest, 1e-6 * rest);
    EXPECT_NEAR(sums.u2, u2, 1e-6 * u2);
    EXPECT_NEAR(sums.u3, u3, 1e-6 * u3);
    kernels::ScoreMoments m;
    k.moments(s.data() + 5, 995, m);
    EXPECT_EQ(m.count, 995);
    EXPECT_FALSE(m.nan);
  }
}

// The streaming path's fused pass: the exp exactly as exp_row's, its sums to float rounding, and the moments of
// the run as the two-pass kernel gives them, to double rounding: on ordinary scores, on a spread
// tiny next to the mean, and on a run whose max is far above the rest.
TEST(Kernels, ExpRowWithMomentsAddsTheMomentsInTheSamePass) {
  std::mt19937 rng(43);
  std::normal_distribution<float> dist(0.0f, 3.0f);
  std::vector<float> base(2500), p1(2500), p2(2500);
  for (float& v : base) v = dist(rng);
  for (int kind = 0; kind < 3; ++kind) {
    std::vector<float> s = base;
    if (kind == 1) for (float& v : s) v = 8e8f + 64.0f * v;  // spread tiny next to the mean
    if (kind == 2) s[17] = 1e6f;                             // one score far above the rest
    float mx = s[0], mn = s[0];
    for (float v : s) mx = std::max(mx, v), mn = std::min(mn, v);
    for (int i = 0; i < kernels::variant_count(); ++i) {
      const kernels::Table& k = kernels::variant(i);
      SCOPED_TRACE(std::string(k.name) + ", run " + std::to_string(kind));
      const float c = kind == 1 ? 1e-3f : 0.5f;
      const kernels::ExpSums plain = k.exp_row(s.data(), p1.data(), 2500, mx, c, true);
      kernels::ScoreMoments fused, two_pass;
      const kernels::ExpSums sums = k.exp_row_moments(s.data(), p2.data(), 2500, mx, c, mx, fused);
      k.moments(s.data(), 2500, two_pass);
      EXPECT_EQ(p1, p2);
      // The same positive terms, summed in an order each compiler's vectorizer picks (the browser
      // build's baseline differs from GCC's): within γ_2500 (float) of the sum.
      const double gf = 2500 * 0x1p-24;
      EXPECT_NEAR(sums.z, plain.z, gf * plain.z);
      EXPECT_NEAR(sums.u3, plain.u3, gf * plain.u3);
      // t = Σ p·x: the same terms (x finite here), perhaps fused into multiply-adds differently.
      EXPECT_NEAR(sums.t, plain.t, 2500 * 0x1p-23 * std::abs(plain.t) + 1e-30);
      EXPECT_EQ(fused.count, 2500);
      EXPECT_EQ(fused.min, mn);
      EXPECT_EQ(fused.max, mx);
      // Double sums of 2500 terms: within γ_2500 (double) of the magnitudes summed.
      const double g = 2500 * 0x1p-52;
      EXPECT_NEAR(fused.mean, two_pass.mean, g * (std::abs(mx) + std::abs(mn)));
      EXPECT_NEAR(fused.m2, two_pass.m2, g * 2500.0 * (static_cast<double>(mx) - mn) * (static_cast<double>(mx) - mn));
    }
  }
}

// The heatmap's pixel sums: every variant's sum and max of weights over runs of every length from 0
// to 80 at every offset within a vector (the AVX-512 and AVX2 variants end a run with one masked
// load), against a double sum: the max exactly, the sum within γ_len of it.
TEST(Kernels, SumMaxOfEveryRunLengthAndOffset) {
  std::mt19937 rng(44);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<float> p(200);
  for (float& v : p) v = unit(rng) * unit(rng);
  for (int i = 0; i < kernels::variant_count(); ++i) {
    const kernels::Table& k = kernels::variant(i);
    SCOPED_TRACE(k.name);
    for (std::int64_t offset = 0; offset < 16; ++offset) {
      for (std::int64_t len = 0; len <= 80; ++len) {
        double want_sum = 0;
        float want_max = 0;
        for (std::int64_t j = 0; j < len; ++j) {
          want_sum += p[static_cast<size_t>(offset + j)];
          want_max = std::max(want_max, p[static_cast<size_t>(offset + j)]);
        }
        float sum = -1, mx = -1;
        k.sum_max(p.data() + offset, len, sum, mx);
        EXPECT_EQ(mx, want_max) << "offset " << offset << ", length " << len;
        EXPECT_NEAR(sum, want_sum, static_cast<double>(len) * 0x1p-24 * want_sum) << "offset " << offset << ", length " << len;
      }
    }
  }
}

TEST(DenseFits, HugeProblemsDoNotFit) {
  EXPECT_TRUE(dense_fits(100, 100));
  EXPECT_FALSE(dense_fits(10000000, 10000000));
  EXPECT_THROW(check_dense_fits(10000000, 10000000), InputError);
}

}  // namespace
}  // namespace attnlab
