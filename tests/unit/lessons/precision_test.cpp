// Emulated float16/bfloat16: exact rounding, and the overflow and NaN cases of the lesson.
#include "engine/lessons/precision.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/presets.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace attnlab {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(Precision, Float16Rounding) {
  EXPECT_EQ(round_to(Precision::Float16, 65504), 65504.0f);
  EXPECT_EQ(round_to(Precision::Float16, 65519), 65504.0f);  // below the halfway point
  EXPECT_EQ(round_to(Precision::Float16, 65520), kInf);      // halfway: ties to even → overflow
  EXPECT_EQ(round_to(Precision::Float16, -1e9), -kInf);
  EXPECT_EQ(round_to(Precision::Float16, 1 + std::ldexp(1.0, -11)), 1.0f);                         // tie → even
  EXPECT_EQ(round_to(Precision::Float16, 1 + 3 * std::ldexp(1.0, -11)), 1 + std::ldexp(1.0f, -9));  // tie → even
  EXPECT_EQ(round_to(Precision::Float16, 0.1), 0.0999755859375f);
  EXPECT_EQ(round_to(Precision::Float16, std::ldexp(1.0, -24)), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(round_to(Precision::Float16, std::ldexp(1.0, -26)), 0.0f);
  EXPECT_EQ(round_to(Precision::Float16, std::exp(11.0)), 59872.0f);
  EXPECT_EQ(round_to(Precision::Float16, std::exp(11.1)), kInf);
  EXPECT_TRUE(std::isnan(round_to(Precision::Float16, std::nan(""))));
}

TEST(Precision, BFloat16AndFloat32Rounding) {
  EXPECT_EQ(round_to(Precision::BFloat16, -1e9), -998244352.0f);
  EXPECT_EQ(round_to(Precision::BFloat16, 1.00390625), 1.0f);  // 1 + 2^-8 is a tie → even
  EXPECT_EQ(round_to(Precision::BFloat16, 3.0e38), std::ldexp(226.0f, 120));  // 3e38 / 2^120 = 225.7
  EXPECT_EQ(round_to(Precision::Float32, 0.1), 0.1f);
  EXPECT_EQ(round_to(Precision::Float32, 1e39), kInf);
  EXPECT_EQ(round_to(Precision::Float32, -1e9), -1e9f);
}

TEST(Precision, Limits) {
  EXPECT_NEAR(format_limits(Precision::Float16).exp_overflow, 11.0899, 1e-4);
  EXPECT_NEAR(format_limits(Precision::Float32).exp_overflow, 88.7228, 1e-4);
  EXPECT_TRUE(std::isinf(format_limits(Precision::Float16).minus_1e9));
  EXPECT_EQ(format_limits(Precision::Float16).max_finite, 65504.0);
}

PrecisionRun run(const Problem& p, Precision prec, bool stable, MaskFill fill) {
  return precision_run(p, PrecisionOptions{prec, stable, fill, 1e9}, *make_cpu_backend());
}

TEST(Precision, Float16OverflowsWhereFloat32DoesNot) {
  const Problem p = load_preset("precision").problem();
  const auto f32 = run(p, Precision::Float32, false, MaskFill::NegInf);
  const auto f16 = run(p, Precision::Float16, false, MaskFill::NegInf);
  EXPECT_TRUE(f32.finite);
  EXPECT_LT(f32.max_weight_error, 1e-6);
  EXPECT_GT(f16.exps_health.inf, 0);
  EXPECT_GT(f16.weights_health.nan, 0);
  EXPECT_FALSE(f16.finite);
  EXPECT_NE(f16.verdict.find("exp overflows float16"), std::string::npos);
  // Subtracting the row max fixes it: every exp is then ≤ 1.
  const auto f16_stable = run(p, Precision::Float16, true, MaskFill::NegInf);
  EXPECT_TRUE(f16_stable.finite);
  EXPECT_EQ(f16_stable.exps_health.inf, 0);
  EXPECT_LT(f16_stable.max_weight_error, 2e-3);
  // bfloat16 has float32's range: no overflow, but only 8 significant bits.
  const auto bf16 = run(p, Precision::BFloat16, false, MaskFill::NegInf);
  EXPECT_TRUE(bf16.finite);
  EXPECT_GT(bf16.max_weight_error, 1e-3);
}

TEST(Precision, MinusOneE9StopsBeingSafeInFloat16) {
  const Problem p = load_preset("precision").problem();
  // masked_fill(−1e9): in float16 the fill itself is −inf, which still works for rows with visible keys.
  const auto fill16 = run(p, Precision::Float16, true, MaskFill::NegBig);
  EXPECT_TRUE(fill16.finite);
  EXPECT_TRUE(std::isinf(fill16.logits(0, 1)));
  EXPECT_EQ(run(p, Precision::Float32, true, MaskFill::NegBig).logits(0, 1), -1e9f);
  // "The Query-Key-Value framework"'s scores + mask·(−1e9): 0·(−inf) = NaN everywhere in
  // float16, fine in float32 and bfloat16.
  const auto add16 = run(p, Precision::Float16, true, MaskFill::AddNegBig);
  EXPECT_FALSE(add16.finite);
  EXPECT_EQ(add16.weights_health.nan, p.Q.rows() * p.K.rows());
  EXPECT_TRUE(run(p, Precision::Float32, true, MaskFill::AddNegBig).finite);
  EXPECT_TRUE(run(p, Precision::BFloat16, true, MaskFill::AddNegBig).finite);
  // Upper triangle exactly zero in float32 whichever fill is used (exp(−1e9 − max) = 0).
  for (const MaskFill f : {MaskFill::NegInf, MaskFill::NegBig, MaskFill::AddNegBig}) {
    const auto r = run(p, Precision::Float32, true, f);
    for (Eigen::Index i = 0; i < r.weights.rows(); ++i)
      for (Eigen::Index j = i + 1; j < r.weights.cols(); ++j) EXPECT_EQ(r.weights(i, j), 0.0f);
  }
}

TEST(Precision, FullyBlockedRow) {
  Problem p;
  p.Q = Matrix::Ones(2, 2);
  p.K = Matrix::Ones(2, 2);
  p.V = Matrix::Ones(2, 2);
  p.options.mask.kind = MaskKind::Custom;
  p.options.mask.blocked = BlockGrid::Zero(2, 2);
  p.options.mask.blocked.row(1).setOnes();
  // −∞ everywhere: −inf − (−inf) = NaN in a naive implementation (the engine itself gives zeros).
  EXPECT_FALSE(run(p, Precision::Float32, true, MaskFill::NegInf).finite);
  // −1e9 everywhere: finite, but the row leaks uniform weight onto blocked keys.
  const auto big = run(p, Precision::Float32, true, MaskFill::NegBig);
  EXPECT_TRUE(big.finite);
  EXPECT_NEAR(big.weights(1, 0), 0.5f, 1e-6);
  EXPECT_NE(big.verdict.find("leaks"), std::string::npos);
  EXPECT_EQ(precision_table(p, *make_cpu_backend()).size(), 18u);
}

}  // namespace
}  // namespace attnlab
