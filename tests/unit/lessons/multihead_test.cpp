// Multi-head attention: the two views of W_O agree, and shared projections collapse the heads.
#include "engine/lessons/multi_head.hpp"

#include "engine/lessons/presets.hpp"
#include "engine/lessons/random.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/cpu/dense.hpp"

#include <gtest/gtest.h>

namespace attnlab {
namespace {

TEST(MultiHead, ConcatThenProjectEqualsSumOfSlabs) {
  for (const int heads : {1, 2, 4, 8}) {
    SCOPED_TRACE(heads);
    NormalRandom rng(100 + static_cast<unsigned>(heads));
    const Matrix X = rng.normal_matrix(7, 16, 1.0);
    const auto w = random_multihead_weights(16, heads, 5, false);
    const auto r = multi_head_attention(X, w, Options{}, *make_cpu_backend());
    EXPECT_EQ(r.d_head, 16 / heads);
    EXPECT_LE(r.max_abs_difference, 1e-5 * std::max(1.0, r.max_abs_output));
    // An independent reference: each head by hand, in double.
    MatrixD expected = MatrixD::Zero(7, 16);
    for (int i = 0; i < heads; ++i) {
      const Result h = compute_cpu(Problem{X * w.W_Q[i], X * w.W_K[i], X * w.W_V[i], Options{}});
      expected += h.output.cast<double>() * w.W_O.middleRows(i * r.d_head, r.d_head).cast<double>();
    }
    EXPECT_LE((expected - r.output.cast<double>()).cwiseAbs().maxCoeff(), 1e-5);
  }
}

TEST(MultiHead, DistinctHeadsHaveDistinctMaps) {
  const Scenario s = load_preset("multi-head");
  ASSERT_EQ(s.lesson.view_name, kMultiHeadView);
  const MultiHeadParams l = multi_head_params(LessonFields(s.lesson));
  const auto w = random_multihead_weights(s.Q.cols(), static_cast<int>(l.heads), l.seed, false);
  const auto r = multi_head_attention(s.Q, w, s.options, *make_cpu_backend());
  ASSERT_EQ(r.heads.size(), 4u);
  EXPECT_FALSE(r.heads_identical);
  EXPECT_GT((r.heads[0].weights - r.heads[1].weights).cwiseAbs().maxCoeff(), 0.05f);
  EXPECT_EQ(r.output_rank, 6);
}

TEST(MultiHead, SharedProjectionsMakeEveryHeadIdentical) {
  const Scenario s = load_preset("shared-heads");
  const MultiHeadParams l = multi_head_params(LessonFields(s.lesson));
  ASSERT_TRUE(l.share_projections);
  const auto w = random_multihead_weights(s.Q.cols(), static_cast<int>(l.heads), l.seed, true);
  const auto r = multi_head_attention(s.Q, w, s.options, *make_cpu_backend());
  EXPECT_TRUE(r.heads_identical);
  for (size_t i = 1; i < r.heads.size(); ++i) EXPECT_EQ(r.heads[i].weights, r.heads[0].weights);
  // Σ H_i W_O^(i) = H_1 Σ W_O^(i): rank at most d_head.
  EXPECT_LE(r.output_rank, r.d_head);
  Matrix slab_sum = Matrix::Zero(r.d_head, r.d_model);
  for (int i = 0; i < w.heads(); ++i) slab_sum += w.W_O.middleRows(i * r.d_head, r.d_head);
  EXPECT_LE((r.heads[0].output * slab_sum - r.output).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_LE(r.max_abs_difference, 1e-5);
}

TEST(MultiHead, SharingChangesOnlyTheHeadsNotW_O) {
  const auto a = random_multihead_weights(8, 4, 3, false);
  const auto b = random_multihead_weights(8, 4, 3, true);
  EXPECT_EQ(a.W_O, b.W_O);
  EXPECT_EQ(a.W_Q[0], b.W_Q[0]);
  EXPECT_NE(a.W_Q[1], b.W_Q[1]);
}

TEST(MultiHead, BadShapesAreInputErrors) {
  EXPECT_THROW(random_multihead_weights(8, 3, 1, false), InputError);
  auto w = random_multihead_weights(8, 2, 1, false);
  w.W_Q[1] = Matrix::Zero(8, 3);
  EXPECT_THROW(multi_head_attention(Matrix::Ones(4, 8), w, Options{}, *make_cpu_backend()), InputError);
  EXPECT_THROW(multi_head_attention(Matrix::Ones(4, 6), random_multihead_weights(8, 2, 1, false), Options{}, *make_cpu_backend()), InputError);
}

TEST(MultiHead, SeededWeightsAreReproducible) {
  EXPECT_EQ(random_multihead_weights(8, 2, 9, false).W_K[1], random_multihead_weights(8, 2, 9, false).W_K[1]);
  NormalRandom rng(1);
  EXPECT_NEAR(rng.uniform(), NormalRandom(1).uniform(), 0.0);
}

}  // namespace
}  // namespace attnlab
