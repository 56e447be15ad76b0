// The float e^x and ln x that vectorize (engine/cpu/exp_float.hpp, log_float.hpp) against libm in
// double, over their whole ranges: the bounds are a few float roundings of the result.
#include "engine/cpu/exp_float.hpp"
#include "engine/cpu/log_float.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>

namespace attnlab {
namespace {

constexpr double kEps = std::numeric_limits<float>::epsilon();

TEST(FloatFunctions, LogOfEveryBinadeWithinFewRoundings) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  double worst = 0;
  for (int e = -126; e <= 127; ++e) {
    for (int k = 0; k < 400; ++k) {
      // Powers of two, both ends of the √2 switch, and random mantissas.
      const float m = k == 0 ? 1.0f : k == 1 ? std::nextafter(1.41421356f, 1.0f) : k == 2 ? std::nextafter(1.41421356f, 2.0f)
                    : k == 3 ? std::nextafter(2.0f, 1.0f) : mantissa(rng);
      const float x = std::ldexp(m, e);
      if (!std::isnormal(x)) continue;
      const double ref = std::log(static_cast<double>(x));
      const double err = std::abs(kernels::log_normal(x) - ref);
      // Near x = 1, ln x is small and computed from the exact m − 1: a relative bound. Elsewhere the
      // result's own rounding and e·ln 2's.
      const double bound = 4 * kEps * std::abs(ref) + 1e-45;
      EXPECT_LE(err, bound) << "x = " << x;
      worst = std::max(worst, err / std::max(std::abs(ref), 1e-30));
    }
  }
  EXPECT_EQ(kernels::log_normal(1.0f), 0.0f);
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(FloatFunctions, LogNearOneKeepsRelativeAccuracy) {
  for (float x = 0.99f; x <= 1.01f; x = std::nextafter(x, 2.0f) + 1e-6f) {
    const double ref = std::log(static_cast<double>(x));
    EXPECT_LE(std::abs(kernels::log_normal(x) - ref), 4 * kEps * std::abs(ref) + 1e-45) << "x = " << x;
  }
}

TEST(FloatFunctions, ExpInRangeWithinFewRoundings) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> arg(-87.3f, 88.0f);
  for (int k = 0; k < 200000; ++k) {
    const float x = k < 3 ? (k == 0 ? 0.0f : k == 1 ? -87.3f : 88.0f) : arg(rng);
    const double ref = std::exp(static_cast<double>(x));
    // The polynomial's truncation (< 6e-9) and the reduction's roundings of r, which |x| scales.
    EXPECT_LE(std::abs(kernels::exp_in_range(x) - ref), (4 + std::abs(x)) * kEps * ref) << "x = " << x;
  }
}

// A NaN reaches e^x when training diverges (the GELU of a NaN activation): NaN comes out, with no
// undefined float-to-integer conversion on the way (the sanitized build's UBSan checks that).
TEST(FloatFunctions, ExpInRangeOfNaNIsNaN) {
  EXPECT_TRUE(std::isnan(kernels::exp_in_range(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::isnan(kernels::exp_in_range(-std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
}  // namespace attnlab
