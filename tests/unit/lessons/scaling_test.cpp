// The CPU scaling demonstration: Exercise 2.3.1's expectations, determinism, option checks.
#include "engine/attention/matrix.hpp"
#include "engine/lessons/scaling.hpp"
#include "support/exercise_231.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace attnlab {
namespace {

TEST(Scaling, ReproducesExercise231OnTheCpu) {
  ScalingOptions o;
  o.trials = 1500;
  auto sampler = make_cpu_scaling_sampler();
  const ScalingResult r = run_scaling(*sampler, o);
  test::expect_exercise_231(r);
  for (const ScalingRow& row : r.rows) EXPECT_EQ(row.samples, 1500) << "d_k = " << row.d_k;
}

TEST(Scaling, NormalsAreStandardAndDeterministic) {
  double sum = 0, sumsq = 0;
  const int blocks = 20000;
  for (int b = 0; b < blocks; ++b) {
    for (float x : scaling_normals(1, 64, 3, 0, static_cast<std::uint32_t>(b))) {
      sum += x;
      sumsq += static_cast<double>(x) * x;
    }
  }
  const double n = 4.0 * blocks;
  EXPECT_NEAR(sum / n, 0.0, 0.02);
  EXPECT_NEAR(sumsq / n, 1.0, 0.02);
  EXPECT_EQ(scaling_normals(5, 8, 1, 2, 3), scaling_normals(5, 8, 1, 2, 3));
  EXPECT_NE(scaling_normals(5, 8, 1, 2, 3), scaling_normals(6, 8, 1, 2, 3));
}

TEST(Scaling, OptionsOutOfRangeNameTheFlag) {
  ScalingOptions o;
  o.d_ks = {0};
  EXPECT_THROW(validate_scaling_options(o), InputError);
  o = {};
  o.trials = 0;
  try {
    validate_scaling_options(o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--trials"), std::string::npos);
  }
  o = {};
  o.d_ks = {65536};
  o.trials = 100000;
  EXPECT_NO_THROW(validate_scaling_options(o));
}

}  // namespace
}  // namespace attnlab

namespace attnlab {
namespace {

TEST(Scaling, JobInSlicesGivesTheSameFiguresAsOneRun) {
  ScalingOptions o;
  o.d_ks = {4, 4096};
  o.trials = 40;
  auto sampler = make_cpu_scaling_sampler();
  const ScalingResult whole = run_scaling(*sampler, o);
  ScalingJob job(o);
  double last = -1;
  int steps = 0;
  while (!job.step(*sampler, 0.0)) {
    EXPECT_GE(job.fraction(), last);
    last = job.fraction();
    ++steps;
  }
  EXPECT_EQ(job.fraction(), 1.0);
  ASSERT_EQ(job.result().rows.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(job.result().rows[i].unscaled_std, whole.rows[i].unscaled_std);
    EXPECT_EQ(job.result().rows[i].scaled_max_prob, whole.rows[i].scaled_max_prob);
    EXPECT_EQ(job.result().rows[i].histogram, whole.rows[i].histogram);
  }
}

}  // namespace
}  // namespace attnlab
