// GPT-2's GELU (engine/model/gelu.hpp), the float path of inference and training: its value and
// derivative against the formula in long double, within bounds derived from float's rounding of
// u = √(2/π)(x + 0.044715x³); the limits far out; and no subnormal results, which would cost a
// microcode assist per element.
#include "engine/model/gelu.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

namespace attnlab::model {
namespace {

struct Reference {
  double u, value, derivative, terms;  // terms: |σ(2u)| + |the derivative's second term|
  // Where σ(2u) < e^−80 the float path gives σ = 0 (gelu.hpp: never subnormal); what that can
  // move the value and the derivative by.
  double value_floor, derivative_floor;
};

// In long double, by 0.5·(1 + tanh u) = σ(2u) and 1 − tanh² u = 4σ(1 − σ), so that nothing is
// lost where tanh u is near ±1 (the tanh form itself rounds to 0 there).
Reference reference(double x) {
  const long double xl = x, k = gelu::kSqrt2OverPi, c = gelu::kCubic;
  const long double u = k * (xl + c * xl * xl * xl), s = 1 / (1 + std::exp(-2 * u)), du = k * (1 + 3 * c * xl * xl);
  const long double second = 2 * xl * s * (1 - s) * du;
  Reference r;
  r.u = static_cast<double>(u);
  r.value = static_cast<double>(xl * s);
  r.derivative = static_cast<double>(s + second);
  r.terms = static_cast<double>(s + std::fabs(second));
  const long double cut = std::exp(-80.0L);
  r.value_floor = static_cast<double>(std::fabs(xl) * cut);
  r.derivative_floor = static_cast<double>(cut * (1 + 2 * std::fabs(xl) * du));
  return r;
}

// Float rounds u with a relative error of a few ε, and d ln σ(2u) / du = 2(1 − σ) ≤ 2 turns that
// into 8ε|u| relative in σ; the exp, the division and the product add a few ε more. Twice that:
double bound(const Reference& r, double magnitude) { return FLT_EPSILON * (16 * std::fabs(r.u) + 16) * magnitude; }

TEST(Gelu, FloatAgreesWithTheFormulaInLongDouble) {
  for (double x = -12; x <= 12; x += 1.0 / 128) {
    const auto xf = static_cast<float>(x);
    const Reference r = reference(xf);
    EXPECT_NEAR(gelu::value(xf), r.value, bound(r, std::fabs(r.value)) + r.value_floor) << "x = " << x;
    EXPECT_NEAR(gelu::derivative(xf), r.derivative, bound(r, r.terms) + r.derivative_floor) << "x = " << x;
    // From the forward's value (training's backward): σ = y/x adds the division's ε to y's.
    EXPECT_NEAR(gelu::derivative_from_value(xf, gelu::value(xf)), r.derivative, bound(r, r.terms) + r.derivative_floor) << "x = " << x;
  }
  EXPECT_EQ(gelu::derivative_from_value(0.0f, 0.0f), 0.5f);
}

TEST(Gelu, DoubleAgreesWithTheFormulaInLongDouble) {
  for (double x = -12; x <= 12; x += 1.0 / 16) {
    const Reference r = reference(x);
    EXPECT_NEAR(gelu::value(x), r.value, 64 * DBL_EPSILON * (std::fabs(r.u) + 1) * std::fabs(r.value) + DBL_MIN) << "x = " << x;
    EXPECT_NEAR(gelu::derivative(x), r.derivative, 64 * DBL_EPSILON * (std::fabs(r.u) + 1) * r.terms + DBL_MIN) << "x = " << x;
  }
}

TEST(Gelu, FarOutItIsTheIdentityOrZero) {
  for (const float x : {20.0f, 1e5f, 1e30f, FLT_MAX}) EXPECT_EQ(gelu::value(x), x);
  for (const float x : {-20.0f, -1e5f, -1e30f, -FLT_MAX}) EXPECT_EQ(gelu::value(x), 0.0f);
  EXPECT_EQ(gelu::derivative(20.0f), 1.0f);
  EXPECT_EQ(gelu::derivative(-20.0f), 0.0f);
  EXPECT_EQ(gelu::value(0.0f), 0.0f);
  EXPECT_EQ(gelu::derivative(0.0f), 0.5f);
}

TEST(Gelu, NeverSubnormalForAnInputThatIsNot) {
  // Every input from ±FLT_MIN·2^24 out to ±10^38, eight per binade: the value and the derivative
  // are 0 or normal (a subnormal input's half is subnormal, and that is left as it is).
  for (float m = FLT_MIN * 16777216.0f; m < 1e38f; m *= 1.0905077f) {
    for (const float x : {m, -m}) {
      EXPECT_NE(std::fpclassify(gelu::value(x)), FP_SUBNORMAL) << "x = " << x;
      if (std::fabs(x) < 1e18f) {
        EXPECT_NE(std::fpclassify(gelu::derivative(x)), FP_SUBNORMAL) << "x = " << x;
      }
    }
  }
}

}  // namespace
}  // namespace attnlab::model
