// The error bounds the backend comparisons use (tests/support/attention_bounds.hpp) are tight
// enough to catch a wrong result: a test whose bound cannot fail proves nothing.
#include "support/attention_bounds.hpp"
#include "engine/cpu/dense.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <random>

namespace attnlab {
namespace {

Problem random_problem(unsigned seed, Eigen::Index n, Eigen::Index m, Eigen::Index dk) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal;
  Problem p;
  p.Q.resize(n, dk);
  p.K.resize(m, dk);
  p.V.resize(m, 3);
  for (Matrix* M : {&p.Q, &p.K, &p.V}) {
    for (Eigen::Index i = 0; i < M->size(); ++i) M->data()[i] = normal(rng);
  }
  return p;
}

TEST(AttentionBounds, AreAFewRoundingsOfTheMagnitudes) {
  const Problem p = random_problem(1, 16, 24, 32);
  const Result r = compute_cpu(p);
  const test::AttentionBounds b = test::attention_bounds(p, r);
  // Scores summed over 32 products with Σ|q k| ≈ 20: the bound 2γ₃₃ Σ|q k| is about 1e-4, a
  // millionth of the scores' spread.
  EXPECT_LT(b.scores.maxCoeff(), 1e-3);
  EXPECT_GT(b.scores.minCoeff(), 0);
  // Weights within a few hundred roundings of themselves, outputs within ~1e-5.
  EXPECT_LT((b.weights.array() / r.weights.cast<double>().array().max(1e-30)).maxCoeff(), 1e-4);
  EXPECT_LT(b.output.maxCoeff(), 1e-4);
}

TEST(AttentionBounds, CatchAResultThatIsWrongByMoreThanRounding) {
  const Problem p = random_problem(2, 8, 10, 16);
  const Result r = compute_cpu(p);
  test::expect_result_within_bounds(p, r, r);  // a result agrees with itself
  Result wrong = r;
  wrong.weights(3, 4) *= 1.001f;
  EXPECT_NONFATAL_FAILURE(test::expect_result_within_bounds(p, r, wrong), "weights: cell (3, 4)");
  wrong = r;
  wrong.output(5, 1) += 1e-3f * std::max(1.0f, std::abs(r.output(5, 1)));
  EXPECT_NONFATAL_FAILURE(test::expect_result_within_bounds(p, r, wrong), "output: cell (5, 1)");
  wrong = r;
  wrong.rows[2].entropy += 1e-3f;
  EXPECT_NONFATAL_FAILURE(test::expect_result_within_bounds(p, r, wrong), "entropy");
}

}  // namespace
}  // namespace attnlab
