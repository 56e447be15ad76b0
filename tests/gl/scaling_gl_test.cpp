// The scaling demonstration on the GPU against the CPU (same counter-based draws), and against
// Exercise 2.3.1's expectations.
#include "engine/gpu/backend_choice.hpp"
#include "engine/lessons/scaling.hpp"
#include "gl_test_backend.hpp"
#include "support/exercise_231.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <utility>

namespace attnlab {
namespace {

TEST(ScalingGl, GpuAgreesWithCpu) {
  ATTNLAB_REQUIRE_GPU(gpu);
  ScalingOptions o;
  o.d_ks = {1, 3, 8, 64, 513, 4096};
  o.trials = 300;
  o.queries = 2;
  o.seed = 7;
  auto gpu_sampler = make_scaling_sampler(gpu);
  auto cpu_sampler = make_cpu_scaling_sampler();
  const ScalingResult g = run_scaling(*gpu_sampler, o);
  const ScalingResult c = run_scaling(*cpu_sampler, o);
  ASSERT_EQ(g.rows.size(), o.d_ks.size());
  for (size_t i = 0; i < g.rows.size(); ++i) {
    SCOPED_TRACE("d_k = " + std::to_string(o.d_ks[i]));
    const ScalingRow& a = c.rows[i];
    const ScalingRow& b = g.rows[i];
    EXPECT_EQ(a.samples, b.samples);
    // The same draws: only float rounding differs.
    EXPECT_NEAR(a.unscaled_std, b.unscaled_std, 1e-3 * a.unscaled_std);
    EXPECT_NEAR(a.scaled_std, b.scaled_std, 1e-3);
    EXPECT_NEAR(a.unscaled_max_prob, b.unscaled_max_prob, 1e-3);
    EXPECT_NEAR(a.scaled_max_prob, b.scaled_max_prob, 1e-3);
    long long total_a = 0, total_b = 0, moved = 0;
    for (size_t k = 0; k < a.histogram.size(); ++k) {
      total_a += a.histogram[k];
      total_b += b.histogram[k];
      moved += std::llabs(a.histogram[k] - b.histogram[k]);
    }
    EXPECT_EQ(total_a, total_b);
    EXPECT_LE(moved, total_a / 100);
  }
}

// A card's batches are larger than llvmpipe's (ScalingSampler::batch_work): the GPU adds its rows
// in trial order, so any split of the trials into batches gives the same sums, bit for bit.
TEST(ScalingGl, FiguresDoNotDependOnTheBatches) {
  ATTNLAB_REQUIRE_GPU(gpu);
  ScalingOptions o;
  o.queries = 3;
  o.seed = 11;
  auto sampler = make_scaling_sampler(gpu);
  for (const int d_k : {5, 300, 1024}) {
    SCOPED_TRACE("d_k = " + std::to_string(d_k));
    ScalingSums whole, split;
    sampler->sample(o, d_k, 0, 97, whole);
    for (const auto& [first, count] : {std::pair{0, 1}, {1, 40}, {41, 2}, {43, 54}}) {
      sampler->sample(o, d_k, first, count, split);
    }
    EXPECT_EQ(whole.rows, split.rows);
    EXPECT_EQ(whole.unscaled_var, split.unscaled_var);
    EXPECT_EQ(whole.scaled_var, split.scaled_var);
    EXPECT_EQ(whole.unscaled_max, split.unscaled_max);
    EXPECT_EQ(whole.unscaled_max_sq, split.unscaled_max_sq);
    EXPECT_EQ(whole.scaled_max, split.scaled_max);
    EXPECT_EQ(whole.scaled_max_sq, split.scaled_max_sq);
    EXPECT_EQ(whole.histogram, split.histogram);
  }
}

TEST(ScalingGl, GpuReproducesExercise231) {
  ATTNLAB_REQUIRE_GPU(gpu);
  ScalingOptions o;
  o.trials = 4000;
  auto sampler = make_scaling_sampler(gpu);
  const ScalingResult r = run_scaling(*sampler, o);
  ASSERT_NO_FATAL_FAILURE(test::expect_exercise_231(r));
  EXPECT_LT(r.rows[0].unscaled_max_prob, r.rows[1].unscaled_max_prob);
}

TEST(ScalingGl, CancelStopsBetweenBatches) {
  ATTNLAB_REQUIRE_GPU(gpu);
  ScalingOptions o;
  o.d_ks = {4096, 8192};
  o.trials = 2000;
  auto sampler = make_scaling_sampler(gpu);
  int calls = 0;
  const ScalingResult r = run_scaling(*sampler, o, [&](double) { return ++calls < 2; });
  EXPECT_LT(r.rows.size(), 2u);
}

}  // namespace
}  // namespace attnlab
