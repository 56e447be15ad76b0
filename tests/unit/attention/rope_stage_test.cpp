// RoPE as a stage of the pipeline (Options::rope, attention.hpp): every backend's front door and the
// CPU's own entry rotate Q and K before the scores and keep the rotated rows; explain-a-cell works
// the rotated product; the rope and gqa lessons' numbers (engine/lessons) hold their claims.
#include "engine/attention/explain.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/lessons/gqa.hpp"
#include "engine/lessons/rope.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <random>

namespace attnlab {
namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

Matrix random_rows(Eigen::Index rows, Eigen::Index d, std::uint32_t seed) {
  std::mt19937 rng(seed);
  return test::random_matrix(rng, rows, d);
}

Problem rope_problem(Eigen::Index n, Eigen::Index m, Eigen::Index d, double theta) {
  Problem p{random_rows(n, d, 1), random_rows(m, d, 2), random_rows(m, 3, 3), {}};
  p.options.rope = RopeSettings{};
  p.options.rope->theta = theta;
  return p;
}

// Per cell, what float32 rounding of the rotation and the product allows (rows of d components).
double cell_bound(const Problem& p) {
  const double d = static_cast<double>(p.Q.cols());
  return 64 * (d + 4) * kEps32 * p.Q.cwiseAbs().maxCoeff() * p.K.cwiseAbs().maxCoeff();
}

TEST(RopeStage, ScoresAreTheRotatedRowsProducts) {
  for (const auto& [n, m, d] : {std::tuple<Eigen::Index, Eigen::Index, Eigen::Index>{1, 1, 2}, {6, 9, 8}, {33, 17, 64}}) {
    const Problem p = rope_problem(n, m, d, 10000);
    const Result r = compute_cpu(p);
    const auto f = rope_frequencies(10000, {}, d);
    const Matrix Qr = rope_rotated(p.Q, rope_positions({}, n), f), Kr = rope_rotated(p.K, rope_positions({}, m), f);
    EXPECT_TRUE(r.rotated_q.isApprox(Qr)) << n << "x" << d;
    EXPECT_TRUE(r.rotated_k.isApprox(Kr));
    const Matrix expected = Qr * Kr.transpose();
    EXPECT_LE((r.scores - expected).cwiseAbs().maxCoeff(), cell_bound(p)) << n << "x" << m << "x" << d;
    // The front door of the CPU backend gives the same.
    const Result b = make_cpu_backend()->compute(p);
    EXPECT_LE((b.scores - r.scores).cwiseAbs().maxCoeff(), cell_bound(p));
  }
}

TEST(RopeStage, ShiftingEveryPositionKeepsEveryScore) {
  Problem p = rope_problem(7, 7, 16, 10000);
  const Result base = compute_cpu(p);
  for (const std::int64_t shift : {1, 7, 100000}) {
    Problem q = p;
    for (auto* list : {&q.options.rope->query_positions, &q.options.rope->key_positions}) {
      *list = rope_positions({}, 7);
      for (auto& x : *list) x += shift;
    }
    const Result moved = compute_cpu(q);
    EXPECT_LE((moved.scores - base.scores).cwiseAbs().maxCoeff(), 2 * cell_bound(p)) << shift;
    EXPECT_LE((moved.weights - base.weights).cwiseAbs().maxCoeff(), 1e-4) << shift;
  }
  // Moving one key alone changes its column: positions matter through distances.
  Problem one = p;
  one.options.rope->key_positions = {0, 1, 2, 9, 4, 5, 6};
  EXPECT_GT((compute_cpu(one).scores.col(3) - base.scores.col(3)).cwiseAbs().maxCoeff(), 100 * cell_bound(p));
}

TEST(RopeStage, OddWidthAndWrongPositionCountsAreInputErrors) {
  Problem p = rope_problem(4, 4, 3, 10000);
  EXPECT_THROW(compute_cpu(p), InputError);
  Problem q = rope_problem(4, 4, 4, 10000);
  q.options.rope->query_positions = {0, 1};
  EXPECT_THROW(compute_cpu(q), InputError);
}

TEST(RopeStage, ExplainShowsTheRotationAndTheRotatedProduct) {
  const Problem p = rope_problem(3, 3, 4, 10000);
  const Result r = compute_cpu(p);
  const Explanation e = explain_cell(p, r, CellRef{Stage::Weights, 2, 0}, {}, {});
  ASSERT_GE(e.steps.size(), 3u);
  EXPECT_NE(e.steps[0].find("position 2"), std::string::npos) << e.steps[0];
  EXPECT_NE(e.steps[0].find("distance 2"), std::string::npos) << e.steps[0];
  EXPECT_NE(e.steps[1].find("rotated"), std::string::npos);
  EXPECT_NE(e.steps[2].find("rotated q_3"), std::string::npos) << e.steps[2];
  EXPECT_NE(e.steps[2].find(hand_number(r.scores(2, 0))), std::string::npos) << e.steps[2];
}

TEST(RopeLesson, ShiftGridAndDecayHoldTheirClaims) {
  const Problem p = rope_problem(6, 6, 8, 10000);
  const Result r = compute_cpu(p);
  const RopeLesson l = rope_lesson(p, r.scores, 7, 8, 64);
  EXPECT_TRUE(l.rope_on);
  EXPECT_LE(l.max_shift_change, l.rounding_bound);
  EXPECT_LT(l.max_diagonal_spread, 1e-5 * l.same_pair_scores.cwiseAbs().maxCoeff());
  ASSERT_EQ(l.frequencies.size(), 4u);
  EXPECT_DOUBLE_EQ(l.frequencies.front().frequency, 1.0);
  EXPECT_GT(l.frequencies.front().frequency, l.frequencies.back().frequency);
  EXPECT_DOUBLE_EQ(l.distances.front().aligned, 1.0);
  EXPECT_LT(l.distances.back().aligned, 0.5);
  EXPECT_THROW(rope_lesson(rope_problem(2, 2, 3, 10), Matrix::Zero(2, 2), 7, 8, 64), InputError);
}

TEST(GqaLesson, MultiHeadIsTheFirstVariantAndGroupsShareTheirMeanProjections) {
  const Matrix X = random_rows(5, 8, 4);
  GqaParams spec;
  spec.heads = 4;
  spec.kv_heads = {4, 2, 1};
  spec.kv_configs = {{"Llama 3.2 1B", 16, 32, 8, 64}};
  const std::unique_ptr<Backend> cpu = make_cpu_backend();
  const GqaLesson l = gqa_lesson(X, spec, Options{}, *cpu);
  ASSERT_EQ(l.variants.size(), 3u);
  EXPECT_EQ(l.variants[0].max_weight_change, 0.0);
  EXPECT_GT(l.variants[2].max_weight_change, 0.0);
  EXPECT_EQ(l.variants[1].group, (std::vector<long long>{0, 0, 1, 1}));
  EXPECT_EQ(l.variants[2].group, (std::vector<long long>{0, 0, 0, 0}));
  // Multi-query: every head's keys are X times the mean of all four heads' W_K.
  const MultiHeadWeights w = random_multihead_weights(8, 4, spec.seed, false);
  const Matrix WK = (w.W_K[0] + w.W_K[1] + w.W_K[2] + w.W_K[3]) / 4.0f;
  const Matrix WV = (w.W_V[0] + w.W_V[1] + w.W_V[2] + w.W_V[3]) / 4.0f;
  const Result head2 = compute_cpu(Problem{X * w.W_Q[2], X * WK, X * WV, Options{}});
  EXPECT_LE((l.variants[2].heads[2].weights - head2.weights).cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_EQ(l.configs[0].bytes_per_token, 2 * 16 * 8 * 64 * 2);
  EXPECT_EQ(l.configs[0].mha_bytes_per_token, 4 * l.configs[0].bytes_per_token);
  spec.kv_heads = {3};
  EXPECT_THROW(gqa_lesson(X, spec, Options{}, *cpu), InputError);
}

}  // namespace
}  // namespace attnlab
