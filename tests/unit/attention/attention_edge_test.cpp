// The engine's edge cases: fully blocked rows, huge logits, values and scores, degenerate shapes,
// the normalizers' own properties, and validation of bad problems.
#include "engine/attention/attention.hpp"
#include "engine/attention/overflow_guard.hpp"
#include "engine/cpu/dense.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

namespace attnlab {
namespace {

using test::all_normalizers;
using test::describe;
using test::expect_row;
using test::three_tokens;

constexpr float kInfF = std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------------------------------------
// Edge cases: fully blocked rows, huge logits and values, degenerate shapes.

TEST(FullyBlocked, RowsGiveZerosAndAFlagNeverNaN) {
  std::mt19937 rng(3);
  Problem p;
  p.Q = test::random_matrix(rng, 4, 3);
  p.K = test::random_matrix(rng, 5, 3);
  p.V = test::random_matrix(rng, 5, 2);
  std::vector<Mask> masks;
  Mask pad0;
  pad0.kind = MaskKind::Padding;
  pad0.param = 0;
  masks.push_back(pad0);
  Mask win0;
  win0.kind = MaskKind::Window;
  win0.param = 0;
  masks.push_back(win0);
  Mask all;
  all.kind = MaskKind::Custom;
  all.blocked = BlockGrid::Ones(4, 5);
  masks.push_back(all);
  for (const Mask& mask : masks) {
    for (Normalizer norm : all_normalizers()) {
      p.options.mask = mask;
      p.options.normalizer = norm;
      SCOPED_TRACE(describe(p));
      const Result r = compute_cpu(p);
      EXPECT_TRUE((r.weights.array() == 0.0f).all());
      EXPECT_TRUE((r.output.array() == 0.0f).all());
      EXPECT_TRUE((r.saturation.array() == 0.0f).all());
      EXPECT_TRUE((r.logits.array() == -kInfF).all());
      for (const auto& d : r.rows) {
        EXPECT_TRUE(d.fully_masked);
        EXPECT_FALSE(std::isnan(d.entropy) || std::isnan(d.effective_keys) || std::isnan(d.jacobian_norm));
      }
      EXPECT_EQ(r.stats.logits.count, 0);
      EXPECT_FALSE(std::isnan(r.stats.logits.mean) || std::isnan(r.stats.logits.std));
    }
  }
}

TEST(FullyBlocked, CausalWithMoreQueriesThanKeysLeavesNoRowEmpty) {
  // Cross-attention shapes: query i sees keys 0..min(i, m−1); row 0 always sees key 0.
  Problem p;
  std::mt19937 rng(5);
  p.Q = test::random_matrix(rng, 7, 2);
  p.K = test::random_matrix(rng, 3, 2);
  p.V = test::random_matrix(rng, 3, 4);
  p.options.mask.kind = MaskKind::Causal;
  const Result r = compute_cpu(p);
  for (const auto& d : r.rows) EXPECT_FALSE(d.fully_masked);
  EXPECT_EQ(r.weights(0, 0), 1.0f);
}

TEST(HugeNumbers, LogitsOfPlusMinus1e30GiveFiniteCorrectWeights) {
  for (Normalizer norm : {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Hardmax}) {
    Problem p;
    p.Q = Matrix{{1}, {-1}, {0}};
    p.K = Matrix{{1e30f}, {-1e30f}, {0}, {1e30f}};
    p.V = Matrix{{1, 0}, {0, 1}, {5, 5}, {3, -3}};
    p.options.scale = false;
    p.options.normalizer = norm;
    SCOPED_TRACE(std::string(normalizer_name(norm)));
    const Result r = compute_cpu(p);
    EXPECT_TRUE(r.weights.allFinite());
    EXPECT_TRUE(r.output.allFinite());
    EXPECT_TRUE(r.saturation.allFinite());
    EXPECT_EQ(r.logits(0, 0), 1e30f);
    EXPECT_EQ(r.logits(0, 1), -1e30f);
    // Query 1: keys 1 and 4 tie at +1e30 and share everything.
    expect_row(r.weights, 0, {0.5, 0, 0, 0.5}, 1e-7, "weights");
    expect_row(r.output, 0, {2, -1.5}, 1e-6, "output");
    // Query 2: key 2 (−1·−1e30 = +1e30) takes everything.
    expect_row(r.weights, 1, {0, 1, 0, 0}, 0, "weights");
    expect_row(r.output, 1, {0, 1}, 0, "output");
    // Query 3: all scores 0, an even split (hardmax and sparsemax too: a four-way tie).
    expect_row(r.weights, 2, {0.25, 0.25, 0.25, 0.25}, 1e-7, "weights");
    for (const auto& d : r.rows) EXPECT_FALSE(d.fully_masked);
  }
}

TEST(HugeNumbers, SigmoidOfHugeLogitsIsZeroOrOne) {
  Problem p;
  p.Q = Matrix{{1}};
  p.K = Matrix{{1e30f}, {-1e30f}, {0}};
  p.V = Matrix{{1}, {2}, {3}};
  p.options.scale = false;
  p.options.normalizer = Normalizer::Sigmoid;
  const Result r = compute_cpu(p);
  expect_row(r.weights, 0, {1, 0, 0.5}, 0, "weights");
  EXPECT_TRUE(r.output.allFinite());
}

TEST(HugeNumbers, ValuesOf1e30GiveFiniteCorrectOutput) {
  Problem p = three_tokens(Matrix{{1e30f, 0}, {0, 1e30f}, {-1e30f, 1e30f}});
  const Result r = compute_cpu(p);
  ASSERT_TRUE(r.output.allFinite());
  const double w00 = r.weights(0, 0), w01 = r.weights(0, 1), w02 = r.weights(0, 2);
  EXPECT_NEAR(r.output(0, 0) / 1e30, w00 - w02, 1e-6);
  EXPECT_NEAR(r.output(0, 1) / 1e30, w01 + w02, 1e-6);
  EXPECT_TRUE(r.saturation.allFinite());
}

TEST(HugeNumbers, ScoresThatOverflowFloatStillGiveFiniteWeights) {
  // 1e20 · 1e20 = 1e40 is beyond float32: the score is +∞ and that key wins outright.
  Problem p;
  p.Q = Matrix{{1e20f}};
  p.K = Matrix{{1e20f}, {1}, {-1}};
  p.V = Matrix{{1}, {2}, {3}};
  const Result r = compute_cpu(p);
  expect_row(r.weights, 0, {1, 0, 0}, 0, "weights");
  EXPECT_EQ(r.output(0, 0), 1.0f);
  EXPECT_FALSE(r.rows[0].fully_masked);
}

TEST(HugeNumbers, ScoresWhoseFloatSumIsNotANumberAreRecomputedExactly) {
  // 1e30·1e30 + 1e30·(−1e30) is ∞ − ∞ = NaN summed one way in float32 and +∞ with a fused
  // multiply-add: which one depends on the BLAS kernel. The exact score is 0 on every machine.
  Problem p;
  p.Q = Matrix{{1e30f, 1e30f}};
  p.K = Matrix{{1e30f, -1e30f}};
  p.V = Matrix{{1}};
  const Result r = compute_cpu(p);
  EXPECT_EQ(r.scores(0, 0), 0.0f);
  EXPECT_EQ(r.weights(0, 0), 1.0f);
  EXPECT_EQ(r.output(0, 0), 1.0f);
  EXPECT_TRUE(r.rows[0].scores_recomputed);
  EXPECT_TRUE(std::isfinite(r.stats.scores.mean));
}

TEST(HugeNumbers, TinyTemperatureApproachesHardmax) {
  Problem p = three_tokens(Matrix{{10, 0}, {0, 10}, {5, 5}});
  p.options.temperature = 1e-6;
  const Result r = compute_cpu(p);
  ASSERT_TRUE(r.weights.allFinite());
  expect_row(r.weights, 0, {0.5, 0, 0.5}, 1e-6, "weights");
  expect_row(r.weights, 2, {0, 0, 1}, 0, "weights");
  p.options.temperature = 1e6;
  expect_row(compute_cpu(p).weights, 2, {1.0 / 3, 1.0 / 3, 1.0 / 3}, 1e-5, "weights at T=1e6");
}

TEST(HugeNumbers, TemperatureSoSmallThatLogitsOverflowIsNotAFullyMaskedRow) {
  Problem p = three_tokens(Matrix{{10, 0}, {0, 10}, {5, 5}});
  p.Q = -p.Q;  // every score ≤ 0: the logits overflow to −∞ in double
  p.options.temperature = 1e-310;
  const Result r = compute_cpu(p);
  for (const auto& d : r.rows) EXPECT_FALSE(d.fully_masked);
  for (Eigen::Index i = 0; i < 3; ++i) EXPECT_NEAR(r.weights.row(i).cast<double>().sum(), 1.0, 1e-6) << i;
  EXPECT_TRUE(r.weights.allFinite());
  EXPECT_FALSE(r.logits.hasNaN());
}

TEST(Shapes, SingleCellAndRectangular) {
  Problem p;
  p.Q = Matrix{{2}};
  p.K = Matrix{{3}};
  p.V = Matrix{{7, -1, 4}};
  const Result r = compute_cpu(p);
  EXPECT_EQ(r.scores(0, 0), 6.0f);
  EXPECT_EQ(r.weights(0, 0), 1.0f);
  EXPECT_EQ(r.output, p.V);
  EXPECT_TRUE(r.rows[0].saturated);
  EXPECT_EQ(r.rows[0].effective_keys, 1.0f);
  EXPECT_EQ(r.saturation(0, 0), 0.0f);
}

TEST(Normalizers, SparsemaxIsSparseAndHardmaxSplitsTies) {
  const double x[4] = {2.0, 1.9, 0.0, -3.0};
  float w[4];
  normalize_row(Normalizer::Sparsemax, x, w, 4);
  EXPECT_NEAR(w[0], 0.55, 1e-6);
  EXPECT_NEAR(w[1], 0.45, 1e-6);
  EXPECT_EQ(w[2], 0.0f);
  EXPECT_EQ(w[3], 0.0f);
  const double t[3] = {1.0, 3.0, 3.0};
  normalize_row(Normalizer::Hardmax, t, w, 3);
  EXPECT_EQ(w[0], 0.0f);
  EXPECT_EQ(w[1], 0.5f);
  EXPECT_EQ(w[2], 0.5f);
  const double s[2] = {0.0, 1e30};
  normalize_row(Normalizer::Sigmoid, s, w, 2);
  EXPECT_EQ(w[0], 0.5f);
  EXPECT_EQ(w[1], 1.0f);
}

TEST(Normalizers, HugeLogitsInEveryNormalizerStayFiniteAndSumToOne) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::vector<double>> rows{
      {1e30, -1e30, 0}, {1e30, 1e30, -inf}, {-1e30, -1e30}, {1e300, 1e300 * 0.5, -1e300}, {inf, 1.0, inf}, {-1e30, 5}};
  for (Normalizer norm : {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Hardmax}) {
    for (const auto& x : rows) {
      std::vector<float> w(x.size());
      ASSERT_TRUE(normalize_row(norm, x.data(), w.data(), static_cast<Eigen::Index>(x.size())));
      double sum = 0;
      for (float v : w) {
        EXPECT_TRUE(std::isfinite(v)) << normalizer_name(norm);
        EXPECT_GE(v, 0.0f);
        sum += v;
      }
      EXPECT_NEAR(sum, 1.0, 1e-6) << normalizer_name(norm) << " first logit " << x[0];
      const auto diag = row_diagnostics(norm, w.data(), static_cast<Eigen::Index>(w.size()));
      EXPECT_TRUE(std::isfinite(diag.entropy) && std::isfinite(diag.jacobian_norm));
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Validation.

TEST(Validation, BadProblemsThrowInputErrorNamingTheMatrix) {
  auto message = [](const Problem& p) -> std::string {
    try {
      compute_cpu(p);
    } catch (const InputError& e) {
      return e.what();
    }
    return "(no error)";
  };
  Problem ok = three_tokens(Matrix{{1, 0}, {0, 1}, {0, 0}});
  Problem p = ok;
  p.Q = Matrix(0, 2);
  EXPECT_NE(message(p).find("Q is empty"), std::string::npos);
  p = ok;
  p.K = Matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  EXPECT_NE(message(p).find("d_k"), std::string::npos);
  p = ok;
  p.V = Matrix{{1, 0}, {0, 1}};
  EXPECT_NE(message(p).find("K and V"), std::string::npos);
  p = ok;
  p.V(1, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_NE(message(p).find("V[1][1] is NaN"), std::string::npos);
  p = ok;
  p.Q(2, 0) = kInfF;
  EXPECT_NE(message(p).find("Q[2][0] is infinite"), std::string::npos);
  for (double t : {0.0, -1.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    p = ok;
    p.options.temperature = t;
    EXPECT_NE(message(p).find("temperature"), std::string::npos) << t;
  }
  p = ok;
  p.options.mask.kind = MaskKind::Padding;
  p.options.mask.param = 4;
  EXPECT_NE(message(p).find("padding length 4"), std::string::npos);
  p.options.mask.param = -1;
  EXPECT_NE(message(p).find("negative"), std::string::npos);
}

// The magnitudes validation reads on its way are the overflow guard's bound: exactly max |Q| and
// max |K| for every length (the vectorized pass's tails), sign and scale, zeros and subnormals.
TEST(Validation, ReturnsTheLargestMagnitudesOfQAndK) {
  std::mt19937 rng(41);
  for (Eigen::Index rows : {1, 3, 17, 64}) {
    for (Eigen::Index cols : {1, 5, 16, 33}) {
      for (float scale : {0.0f, 1e-40f, 1.0f, 1e37f}) {
        Problem p;
        p.Q = test::random_matrix(rng, rows, cols) * scale;
        p.K = test::random_matrix(rng, rows + 2, cols) * scale;
        p.V = test::random_matrix(rng, rows + 2, 3);
        // The largest entry somewhere in the middle, negative: a pass that drops a tail or the
        // sign misses it.
        p.K(rows / 2 + 1, cols / 2) = -8.0f * (scale == 0 ? 1.0f : scale);
        const Magnitudes read = validate_problem(p);
        EXPECT_EQ(read.q, p.Q.cwiseAbs().maxCoeff()) << rows << "×" << cols << " scale " << scale;
        EXPECT_EQ(read.k, p.K.cwiseAbs().maxCoeff()) << rows << "×" << cols << " scale " << scale;
        EXPECT_EQ(ScoreOverflowGuard(p, read).active(), ScoreOverflowGuard(p).active());
        EXPECT_EQ(ScoreOverflowGuard(p, read).active(), scale > 1.0f);  // entries of ~10 cannot overflow
      }
    }
  }
}

TEST(Validation, DenseStagesThatWouldNotFitStateLimitAndNeed) {
  const Eigen::Index huge = 1'000'000;
  ASSERT_GT(dense_bytes(huge, huge), dense_memory_limit());
  try {
    check_dense_fits(huge, huge);
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("need"), std::string::npos) << msg;
    EXPECT_NE(msg.find("limit"), std::string::npos) << msg;
    EXPECT_NE(msg.find("TiB"), std::string::npos) << msg;  // 1e6 × 1e6 cells × 16 bytes = 14.6 TiB
    EXPECT_EQ(msg.find("e+"), std::string::npos) << "no exponent notation for people: " << msg;
  }
  EXPECT_NO_THROW(check_dense_fits(100, 100));
  EXPECT_EQ(dense_bytes(10, 20), 4.0 * 10 * 20 * 4);
}

TEST(Normalizers, NamesRoundTripAndUnknownNamesThrow) {
  for (Normalizer n : all_normalizers()) EXPECT_EQ(parse_normalizer(normalizer_name(n), "x"), n);
  EXPECT_THROW(parse_normalizer("softermax", "--normalizer"), InputError);
}

}  // namespace
}  // namespace attnlab
