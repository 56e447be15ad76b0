// The engine's numbers: the course texts' worked examples, seeded-random properties against a
// naive reference, and the per-row diagnostics (edge cases and validation: attention_edge_test.cpp).

// Index of this file:
// [SECTION] The course texts' worked examples
// [SECTION] Seeded random properties
// [SECTION] Diagnostics
#include "engine/attention/attention.hpp"
#include "engine/attention/backend.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/lessons/presets.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace attnlab {
namespace {

using test::all_mask_kinds;
using test::all_normalizers;
using test::describe;
using test::expect_row;
using test::three_tokens;

constexpr float kInfF = std::numeric_limits<float>::infinity();


// ---------------------------------------------------------------------------------------------
// [SECTION] The course texts' worked examples

TEST(Seed000, WeightsAndTrueOutput) {
  const Result r = compute_cpu(three_tokens(Matrix{{10, 0}, {0, 10}, {5, 5}}));
  expect_row(r.weights, 0, {0.401, 0.198, 0.401}, 5e-4, "weights");
  expect_row(r.weights, 1, {0.198, 0.401, 0.401}, 5e-4, "weights");
  // The book prints (0.276 0.276 0.448); exp(0.707, 0.707, 1.414) normalizes to this.
  expect_row(r.weights, 2, {0.248, 0.248, 0.503}, 5e-4, "weights");
  EXPECT_GT(std::abs(r.weights(2, 0) - 0.276f), 0.02f) << "the book's slip must not be reproduced";
  // 3.99 is 0.401·5 + 0.198·10 from the rounded weights; the exact value is 3.9833.
  expect_row(r.output, 0, {6.02, 3.99}, 1e-2, "output");
  // The book prints (1.98 6.02), leaving out 0.401·(5, 5).
  expect_row(r.output, 1, {3.99, 6.02}, 1e-2, "output");
  EXPECT_GT(std::abs(r.output(1, 0) - 1.98f), 1.0f) << "the book's slip must not be reproduced";
  expect_row(r.output, 2, {5, 5}, 1e-5, "output");
  EXPECT_NEAR(r.scale_divisor, std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(r.effective_temperature, std::sqrt(2.0), 1e-12);
  expect_row(r.scores, 2, {1, 1, 2}, 0, "scores");
  expect_row(r.logits, 2, {1 / std::sqrt(2.0), 1 / std::sqrt(2.0), std::sqrt(2.0)}, 1e-6, "logits");
}

TEST(Seed000, Row3WithoutScalingSharpens) {
  Problem p = three_tokens(Matrix{{10, 0}, {0, 10}, {5, 5}});
  p.options.scale = false;
  const Result r = compute_cpu(p);
  expect_row(r.weights, 2, {0.21, 0.21, 0.58}, 5e-3, "unscaled weights");
  EXPECT_EQ(r.scale_divisor, 1.0);
  EXPECT_GT(r.weights(2, 2), compute_cpu(three_tokens(p.V)).weights(2, 2));
}

TEST(Seed000, PresetMatchesTheHandBuiltProblem) {
  const Scenario s = load_preset("three-tokens");
  const Result a = compute_cpu(s.problem());
  const Result b = compute_cpu(three_tokens(Matrix{{10, 0}, {0, 10}, {5, 5}}));
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(default_scenario().title, s.title);
}

TEST(Seed004, WeightsAndOutputToFourDecimals) {
  const Scenario s = load_preset("three-tokens-basis");
  const Result r = compute_cpu(s.problem());
  // The book truncates 0.50349 to 0.5034, so allow one unit in the fourth decimal.
  const double tol = 1e-4;
  expect_row(r.weights, 0, {0.4011, 0.1978, 0.4011}, tol, "weights");
  expect_row(r.weights, 1, {0.1978, 0.4011, 0.4011}, tol, "weights");
  expect_row(r.weights, 2, {0.2483, 0.2483, 0.5034}, tol, "weights");
  expect_row(r.output, 0, {0.4011, 0.1978}, tol, "output");
  expect_row(r.output, 1, {0.1978, 0.4011}, tol, "output");
  expect_row(r.output, 2, {0.2483, 0.2483}, tol, "output");
}

TEST(Exercise232, CausalSixRowsSumToOneAndUpperTriangleIsExactlyZero) {
  const Scenario s = load_preset("causal-six");
  ASSERT_EQ(s.Q.rows(), 6);
  ASSERT_EQ(s.K.rows(), 6);
  ASSERT_EQ(s.options.mask.kind, MaskKind::Causal);
  const Result r = compute_cpu(s.problem());
  for (Eigen::Index i = 0; i < 6; ++i) {
    EXPECT_NEAR(r.weights.row(i).cast<double>().sum(), 1.0, 1e-6) << "row " << i;
    for (Eigen::Index j = 0; j < 6; ++j) {
      if (j > i) {
        EXPECT_EQ(r.weights(i, j), 0.0f) << "(" << i << "," << j << ") above the diagonal";
        EXPECT_EQ(r.logits(i, j), -kInfF);
        EXPECT_EQ(r.saturation(i, j), 0.0f);
      } else {
        EXPECT_GT(r.weights(i, j), 0.0f) << "(" << i << "," << j << ") on or below the diagonal";
        EXPECT_TRUE(std::isfinite(r.logits(i, j)));
      }
    }
    EXPECT_FALSE(r.rows[static_cast<size_t>(i)].fully_masked);
  }
  // The first token sees only itself.
  EXPECT_EQ(r.weights(0, 0), 1.0f);
  EXPECT_TRUE(r.rows[0].saturated);
  EXPECT_EQ(r.output.row(0), s.V.row(0));
  EXPECT_EQ(r.stats.logits.count, 21);
  EXPECT_EQ(r.stats.scores.count, 36);
}

TEST(Presets, EveryPresetLoadsAndComputes) {
  const auto presets = list_presets();
  ASSERT_GE(presets.size(), 3u);
  EXPECT_EQ(presets[0].name, "three-tokens");
  for (const auto& p : presets) {
    SCOPED_TRACE(p.name);
    EXPECT_FALSE(p.title.empty());
    const Scenario s = load_preset(p.name);
    const Result r = compute_cpu(s.problem());
    EXPECT_TRUE(r.weights.allFinite());
    EXPECT_TRUE(r.output.allFinite());
  }
  EXPECT_THROW(load_preset("no-such-lesson"), InputError);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Seeded random properties over many shapes, every mask kind and every normalizer

struct Case {
  Problem problem;
  Result result;
};

std::vector<Problem> random_problems(unsigned seed, int count) {
  std::mt19937 rng(seed);
  std::vector<Problem> out;
  for (int c = 0; c < count; ++c) {
    const bool big = c % 10 == 9;
    const Eigen::Index n = big ? test::uniform_int(rng, 20, 40) : test::uniform_int(rng, 1, 9);
    const Eigen::Index m = big ? test::uniform_int(rng, 20, 40) : test::uniform_int(rng, 1, 9);
    const Eigen::Index dk = big ? 64 : test::uniform_int(rng, 1, 7);
    const Eigen::Index dv = test::uniform_int(rng, 1, 5);
    for (MaskKind kind : all_mask_kinds()) {
      for (Normalizer norm : all_normalizers()) {
        Problem p;
        p.Q = test::random_matrix(rng, n, dk, 1.5f);
        p.K = test::random_matrix(rng, m, dk, 1.5f);
        p.V = test::random_matrix(rng, m, dv, 3.0f);
        p.options.mask = test::random_mask(rng, kind, n, m);
        p.options.normalizer = norm;
        p.options.scale = test::uniform_int(rng, 0, 3) != 0;
        const double temps[] = {1.0, 0.25, 3.0, 0.05, 20.0};
        p.options.temperature = temps[test::uniform_int(rng, 0, 4)];
        out.push_back(std::move(p));
      }
    }
  }
  return out;
}

// Shapes per run: 60 (× 6 masks × 4 normalizers) in optimized builds; the unoptimized
// sanitizer build (scripts/test) looks for memory errors and gets a third of them.
#if defined(NDEBUG)
constexpr int kRandomShapes = 60;
#else
constexpr int kRandomShapes = 20;
#endif

class RandomProblems : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    cases_ = new std::vector<Case>();
    for (auto& p : random_problems(20240611u, kRandomShapes)) {
      Result r = compute_cpu(p);
      cases_->push_back({std::move(p), std::move(r)});
    }
  }
  static void TearDownTestSuite() {
    delete cases_;
    cases_ = nullptr;
  }
  static std::vector<Case>* cases_;
};
std::vector<Case>* RandomProblems::cases_ = nullptr;

TEST_F(RandomProblems, ShapesAreRight) {
  for (const auto& [p, r] : *cases_) {
    SCOPED_TRACE(describe(p));
    const auto n = p.Q.rows(), m = p.K.rows();
    EXPECT_EQ(r.n, n);
    EXPECT_EQ(r.m, m);
    EXPECT_EQ(r.d_k, p.Q.cols());
    EXPECT_EQ(r.d_v, p.V.cols());
    EXPECT_EQ(r.scores.rows(), n);
    EXPECT_EQ(r.scores.cols(), m);
    EXPECT_EQ(r.logits.rows(), n);
    EXPECT_EQ(r.weights.cols(), m);
    EXPECT_EQ(r.saturation.rows(), n);
    EXPECT_EQ(r.output.rows(), n);
    EXPECT_EQ(r.output.cols(), p.V.cols());
    EXPECT_EQ(static_cast<Eigen::Index>(r.rows.size()), n);
    EXPECT_TRUE(r.dense);
  }
}

TEST_F(RandomProblems, RowsSumToOneAndNothingIsNaN) {
  for (const auto& [p, r] : *cases_) {
    SCOPED_TRACE(describe(p));
    EXPECT_TRUE(r.scores.allFinite());
    EXPECT_TRUE(r.weights.allFinite());
    EXPECT_TRUE(r.output.allFinite());
    EXPECT_TRUE(r.saturation.allFinite());
    EXPECT_FALSE(r.logits.hasNaN());
    for (Eigen::Index i = 0; i < r.n; ++i) {
      const double sum = r.weights.row(i).cast<double>().sum();
      EXPECT_GE(r.weights.row(i).minCoeff(), 0.0f);
      EXPECT_LE(r.weights.row(i).maxCoeff(), 1.0f);
      if (r.rows[static_cast<size_t>(i)].fully_masked) {
        EXPECT_EQ(sum, 0.0) << "row " << i;
      } else if (p.options.normalizer != Normalizer::Sigmoid) {
        EXPECT_NEAR(sum, 1.0, 2e-6) << "row " << i;
      }
    }
  }
}

TEST_F(RandomProblems, MaskedWeightsAreExactlyZeroAndLogitsMinusInfinity) {
  for (const auto& [p, r] : *cases_) {
    SCOPED_TRACE(describe(p));
    const BlockGrid g = mask_grid(p.options.mask, r.n, r.m);
    for (Eigen::Index i = 0; i < r.n; ++i) {
      bool all_blocked = true;
      for (Eigen::Index j = 0; j < r.m; ++j) {
        if (g(i, j)) {
          EXPECT_EQ(r.weights(i, j), 0.0f) << "(" << i << "," << j << ")";
          EXPECT_EQ(r.logits(i, j), -kInfF) << "(" << i << "," << j << ")";
          EXPECT_EQ(r.saturation(i, j), 0.0f);
        } else {
          all_blocked = false;
          EXPECT_TRUE(std::isfinite(r.logits(i, j)));
        }
      }
      const auto& d = r.rows[static_cast<size_t>(i)];
      EXPECT_EQ(d.fully_masked, all_blocked) << "row " << i;
      EXPECT_EQ(d.padding, p.options.mask.kind == MaskKind::Padding && i >= p.options.mask.param);
      if (all_blocked) {
        EXPECT_TRUE((r.output.row(i).array() == 0.0f).all()) << "row " << i;
        EXPECT_EQ(d.max_weight, 0.0f);
        EXPECT_EQ(d.entropy, 0.0f);
        EXPECT_EQ(d.jacobian_norm, 0.0f);
        EXPECT_FALSE(d.saturated);
      }
    }
  }
}

TEST_F(RandomProblems, OutputsLieInsideTheVisibleValuesBoundingBox) {
  for (const auto& [p, r] : *cases_) {
    if (p.options.normalizer == Normalizer::Sigmoid) continue;  // weights need not sum to 1
    SCOPED_TRACE(describe(p));
    for (Eigen::Index i = 0; i < r.n; ++i) {
      if (r.rows[static_cast<size_t>(i)].fully_masked) continue;
      for (Eigen::Index c = 0; c < r.d_v; ++c) {
        float lo = kInfF, hi = -kInfF;
        for (Eigen::Index j = 0; j < r.m; ++j) {
          if (p.options.mask.is_blocked(i, j)) continue;
          lo = std::min(lo, p.V(j, c));
          hi = std::max(hi, p.V(j, c));
        }
        const float slack = 1e-5f * (1 + std::max(std::abs(lo), std::abs(hi)));
        EXPECT_GE(r.output(i, c), lo - slack) << "(" << i << "," << c << ")";
        EXPECT_LE(r.output(i, c), hi + slack) << "(" << i << "," << c << ")";
      }
    }
  }
}

TEST_F(RandomProblems, NaiveTripleLoopReferenceAgrees) {
  for (const auto& [p, r] : *cases_) {
    SCOPED_TRACE(describe(p));
    const test::Reference ref = test::naive_attention(p);
    const double divisor = (p.options.scale ? std::sqrt(static_cast<double>(p.Q.cols())) : 1.0) * p.options.temperature;
    EXPECT_NEAR(r.effective_temperature, divisor, 1e-12);
    for (Eigen::Index i = 0; i < r.n; ++i) {
      // Hardmax jumps at ties: skip rows whose two best logits are closer than float rounding.
      if (p.options.normalizer == Normalizer::Hardmax) {
        std::vector<double> open;
        for (Eigen::Index j = 0; j < r.m; ++j) {
          if (!p.options.mask.is_blocked(i, j)) open.push_back(ref.logits(i, j));
        }
        std::sort(open.begin(), open.end(), std::greater<>());
        if (open.size() >= 2 && open[0] - open[1] < 1e-4) continue;
      }
      EXPECT_EQ(r.rows[static_cast<size_t>(i)].fully_masked, ref.fully_masked[static_cast<size_t>(i)]);
      for (Eigen::Index j = 0; j < r.m; ++j) {
        EXPECT_NEAR(r.scores(i, j), ref.scores(i, j), 1e-5 * (1 + std::abs(ref.scores(i, j)) * p.Q.cols()));
        if (std::isinf(ref.logits(i, j))) {
          EXPECT_EQ(r.logits(i, j), -kInfF);
        } else {
          EXPECT_NEAR(r.logits(i, j), ref.logits(i, j), 1e-5 * (1 + std::abs(ref.logits(i, j)) * p.Q.cols()));
        }
        // Logits of size 100 (T = 0.05) carry absolute float errors near 1e-4 into the weights.
        EXPECT_NEAR(r.weights(i, j), ref.weights(i, j), 2e-4) << "(" << i << "," << j << ")";
        EXPECT_NEAR(r.saturation(i, j), ref.weights(i, j) * (1 - ref.weights(i, j)), 2e-4);
      }
      for (Eigen::Index c = 0; c < r.d_v; ++c) {
        EXPECT_NEAR(r.output(i, c), ref.output(i, c), 2e-4 * (1 + p.V.cwiseAbs().maxCoeff()));
      }
    }
  }
}

TEST_F(RandomProblems, StatsMatchTheirDefinitions) {
  for (const auto& [p, r] : *cases_) {
    SCOPED_TRACE(describe(p));
    double ss = 0, ssq = 0, ls = 0, lsq = 0;
    long long lc = 0;
    double lmin = std::numeric_limits<double>::infinity(), lmax = -lmin;
    for (Eigen::Index i = 0; i < r.n; ++i) {
      for (Eigen::Index j = 0; j < r.m; ++j) {
        ss += r.scores(i, j);
        ssq += double(r.scores(i, j)) * r.scores(i, j);
        if (!p.options.mask.is_blocked(i, j)) {
          const double l = r.scores(i, j) / r.effective_temperature;
          ls += l;
          lsq += l * l;
          ++lc;
          lmin = std::min(lmin, l);
          lmax = std::max(lmax, l);
        }
      }
    }
    const double count = static_cast<double>(r.n * r.m);
    const double smean = ss / count;
    EXPECT_EQ(r.stats.scores.count, r.n * r.m);
    EXPECT_NEAR(r.stats.scores.mean, smean, 1e-9 * (1 + std::abs(smean)));
    EXPECT_NEAR(r.stats.scores.std, std::sqrt(std::max(0.0, ssq / count - smean * smean)), 1e-6);
    EXPECT_EQ(r.stats.scores.min, r.scores.minCoeff());
    EXPECT_EQ(r.stats.scores.max, r.scores.maxCoeff());
    EXPECT_EQ(r.stats.logits.count, lc);
    if (lc > 0) {
      const double lmean = ls / static_cast<double>(lc);
      EXPECT_NEAR(r.stats.logits.mean, lmean, 1e-9 * (1 + std::abs(lmean)));
      EXPECT_NEAR(r.stats.logits.std, std::sqrt(std::max(0.0, lsq / static_cast<double>(lc) - lmean * lmean)), 1e-6);
      EXPECT_DOUBLE_EQ(r.stats.logits.min, lmin);
      EXPECT_DOUBLE_EQ(r.stats.logits.max, lmax);
    }
  }
}

TEST(Stats, StdStaysAccurateWhenTheSpreadIsTinyNextToTheMean) {
  // Six scores of 808792128 and one of 808792064 (float32-exact, one ulp apart): the population
  // std is 64·√6/7 = 22.395. E[x²] − mean² in double said 25.30 here (13% off).
  Problem p;
  p.Q = Matrix{{1}};
  p.K = Matrix{{808792128.0f}, {808792128.0f}, {808792128.0f}, {808792128.0f}, {808792128.0f}, {808792064.0f},
               {808792128.0f}};
  p.V = Matrix::Zero(7, 1);
  p.options.scale = false;
  const Result r = compute_cpu(p);
  const double exact = 64.0 * std::sqrt(6.0) / 7.0;
  EXPECT_NEAR(r.stats.scores.std, exact, 1e-6 * exact);
  EXPECT_NEAR(r.stats.logits.std, exact, 1e-6 * exact);
  EXPECT_NEAR(r.stats.scores.mean, 808792128.0 - 64.0 / 7.0, 1e-6);
  EXPECT_EQ(r.stats.scores.min, 808792064.0);
  EXPECT_EQ(r.stats.scores.max, 808792128.0);
}

// Adding a constant to a row of logits changes nothing (softmax, sparsemax, hardmax).
TEST(ShiftInvariance, NormalizeRowIgnoresARowConstant) {
  std::mt19937 rng(7);
  const double inf = std::numeric_limits<double>::infinity();
  for (Normalizer norm : {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Hardmax}) {
    for (int trial = 0; trial < 300; ++trial) {
      const int m = test::uniform_int(rng, 1, 12);
      std::normal_distribution<double> d(0, 2);
      std::vector<double> x(static_cast<size_t>(m)), y(static_cast<size_t>(m));
      const double c = d(rng) * 50;
      for (int j = 0; j < m; ++j) {
        x[static_cast<size_t>(j)] = test::uniform_int(rng, 0, 4) == 0 ? -inf : std::round(d(rng) * 64) / 64;
        y[static_cast<size_t>(j)] = x[static_cast<size_t>(j)] + c;  // −∞ + c stays −∞
      }
      std::vector<float> wx(static_cast<size_t>(m)), wy(static_cast<size_t>(m));
      const bool ax = normalize_row(norm, x.data(), wx.data(), m);
      const bool ay = normalize_row(norm, y.data(), wy.data(), m);
      EXPECT_EQ(ax, ay);
      for (int j = 0; j < m; ++j) {
        EXPECT_NEAR(wx[static_cast<size_t>(j)], wy[static_cast<size_t>(j)], 1e-5)
            << normalizer_name(norm) << " trial " << trial << " cell " << j << " c=" << c;
      }
    }
  }
}

// The same property end to end: an extra key dimension that adds c_i to every score of query i.
TEST(ShiftInvariance, ComputeIgnoresPerQueryScoreOffsets) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = test::uniform_int(rng, 1, 8), m = test::uniform_int(rng, 1, 8), dk = test::uniform_int(rng, 1, 5);
    Problem a;
    a.Q = test::random_matrix(rng, n, dk);
    a.K = test::random_matrix(rng, m, dk);
    a.V = test::random_matrix(rng, m, 3);
    a.options.scale = false;
    a.options.mask = test::random_mask(rng, all_mask_kinds()[static_cast<size_t>(trial % 6)], n, m);
    Problem b = a;
    b.Q.conservativeResize(n, dk + 1);
    b.K.conservativeResize(m, dk + 1);
    for (int i = 0; i < n; ++i) b.Q(i, dk) = static_cast<float>(test::uniform_int(rng, -40, 40));
    b.K.col(dk).setOnes();
    const Result ra = compute_cpu(a), rb = compute_cpu(b);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < m; ++j) EXPECT_NEAR(ra.weights(i, j), rb.weights(i, j), 2e-5) << "trial " << trial;
    }
    EXPECT_TRUE(ra.output.isApprox(rb.output, 1e-4f) || (ra.output - rb.output).cwiseAbs().maxCoeff() < 1e-4f);
  }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Diagnostics: entropy, effective keys, Jacobian norm against an explicitly built Jacobian

// The normalizer's Jacobian d weights / d logits at one row, built cell by cell from its
// definition (softmax: diag(a) − a aᵀ; sparsemax: diag(s) − s sᵀ/|S| on the support S;
// sigmoid: diag(a(1−a)); hardmax: 0 almost everywhere).
double explicit_jacobian_frobenius(Normalizer norm, const Matrix& weights, Eigen::Index i) {
  const Eigen::Index m = weights.cols();
  MatrixD J = MatrixD::Zero(m, m);
  double support = 0;
  for (Eigen::Index j = 0; j < m; ++j) support += weights(i, j) > 0;
  for (Eigen::Index a = 0; a < m; ++a) {
    for (Eigen::Index b = 0; b < m; ++b) {
      const double wa = weights(i, a), wb = weights(i, b);
      switch (norm) {
        case Normalizer::Softmax: J(a, b) = (a == b ? wa : 0.0) - wa * wb; break;
        case Normalizer::Sparsemax: {
          const double sa = wa > 0, sb = wb > 0;
          J(a, b) = (a == b ? sa : 0.0) - (support > 0 ? sa * sb / support : 0.0);
          break;
        }
        case Normalizer::Sigmoid: J(a, b) = a == b ? wa * (1 - wa) : 0.0; break;
        case Normalizer::Hardmax: break;
      }
    }
  }
  return J.norm();
}

TEST_F(RandomProblems, RowDiagnosticsMatchTheirDefinitions) {
  for (const auto& [p, r] : *cases_) {
    SCOPED_TRACE(describe(p));
    for (Eigen::Index i = 0; i < r.n; ++i) {
      const auto& d = r.rows[static_cast<size_t>(i)];
      const double total = r.weights.row(i).cast<double>().sum();
      double h = 0;
      for (Eigen::Index j = 0; j < r.m; ++j) {
        const double a = r.weights(i, j) / (total > 0 ? total : 1);
        if (a > 0) h -= a * std::log(a);
      }
      EXPECT_NEAR(d.max_weight, r.weights.row(i).maxCoeff(), 0) << "row " << i;
      EXPECT_NEAR(d.entropy, h, 1e-5) << "row " << i;
      // Sigmoid can underflow every visible weight to 0: then no key is attended at all.
      const bool attended = total > 0;
      if (attended) {
        EXPECT_NEAR(d.effective_keys, std::exp(h), 1e-4 * std::exp(h)) << "row " << i;
      } else {
        EXPECT_EQ(d.effective_keys, 0.0f) << "row " << i;
      }
      EXPECT_EQ(d.saturated, r.weights.row(i).maxCoeff() >= 0.99f) << "row " << i;
      EXPECT_NEAR(d.jacobian_norm, explicit_jacobian_frobenius(p.options.normalizer, r.weights, i), 2e-5)
          << "row " << i;
      // Effective keys lie between 1 and the number of visible keys.
      if (attended) {
        long long visible = 0;
        for (Eigen::Index j = 0; j < r.m; ++j) visible += !p.options.mask.is_blocked(i, j);
        EXPECT_GE(d.effective_keys, 1.0f - 1e-5f);
        EXPECT_LE(d.effective_keys, static_cast<float>(visible) * (1 + 1e-5f));
      }
    }
  }
}

TEST(Diagnostics, KnownRows) {
  const double inf = std::numeric_limits<double>::infinity();
  // Uniform over 4: entropy ln 4, 4 effective keys, softmax Jacobian norm sqrt(3)/4.
  const double x[4] = {0.5, 0.5, 0.5, 0.5};
  float w[4];
  ASSERT_TRUE(normalize_row(Normalizer::Softmax, x, w, 4));
  RowDiagnostics d = row_diagnostics(Normalizer::Softmax, w, 4);
  EXPECT_NEAR(d.entropy, std::log(4.0), 1e-6);
  EXPECT_NEAR(d.effective_keys, 4.0, 1e-5);
  EXPECT_NEAR(d.jacobian_norm, std::sqrt(3.0) / 4, 1e-6);
  EXPECT_NEAR(d.max_weight, 0.25, 1e-7);
  EXPECT_FALSE(d.saturated);
  // One-hot: entropy 0, one key, Jacobian 0, saturated.
  const double y[3] = {0, -inf, 1000};
  ASSERT_TRUE(normalize_row(Normalizer::Softmax, y, w, 3));
  d = row_diagnostics(Normalizer::Softmax, w, 3);
  EXPECT_EQ(w[2], 1.0f);
  EXPECT_EQ(d.entropy, 0.0f);
  EXPECT_EQ(d.effective_keys, 1.0f);
  EXPECT_EQ(d.jacobian_norm, 0.0f);
  EXPECT_TRUE(d.saturated);
  // Exactly at the threshold: 0.99 counts as saturated.
  const float at[2] = {0.99f, 0.01f};
  EXPECT_TRUE(row_diagnostics(Normalizer::Softmax, at, 2).saturated);
  const float below[2] = {0.98f, 0.02f};
  EXPECT_FALSE(row_diagnostics(Normalizer::Softmax, below, 2).saturated);
  // Sparsemax on a support of 3: sqrt(k − 1).
  const float sp[4] = {0.5f, 0.3f, 0.2f, 0.0f};
  EXPECT_NEAR(row_diagnostics(Normalizer::Sparsemax, sp, 4).jacobian_norm, std::sqrt(2.0), 1e-6);
  // Fully blocked row: every diagnostic is 0, nothing NaN.
  const double blocked[3] = {-inf, -inf, -inf};
  for (Normalizer norm : all_normalizers()) {
    EXPECT_FALSE(normalize_row(norm, blocked, w, 3));
    EXPECT_EQ(w[0], 0.0f);
    d = row_diagnostics(norm, w, 3);
    EXPECT_EQ(d.entropy, 0.0f);
    EXPECT_EQ(d.effective_keys, 0.0f);
    EXPECT_EQ(d.jacobian_norm, 0.0f);
  }
}

TEST(Backend, CpuBackendIsComputeCpu) {
  auto b = make_cpu_backend();
  EXPECT_EQ(b->name(), "cpu");
  const Problem p = three_tokens(Matrix{{1, 0}, {0, 1}, {0, 0}});
  EXPECT_EQ(b->compute(p).weights, compute_cpu(p).weights);
}

}  // namespace
}  // namespace attnlab