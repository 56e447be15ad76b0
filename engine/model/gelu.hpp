// GPT-2's "gelu_new", 0.5·x·(1 + tanh u) with u = √(2/π)·(x + 0.044715·x³), and its derivative:
// the one home of the activation, whose forward and backward blocks (decoder_blocks.cpp) inference
// and training share. Written as x·σ(2u), since 0.5·(1 + tanh u) = σ(2u): one exp per element, no
// cancellation where tanh u is near −1, and for float an exp that vectorizes (libm's tanhf and
// expf are scalar calls, and took half of a training step's time).
#pragma once

#include "engine/cpu/exp_float.hpp"

#include <bit>
#include <cmath>
#include <cstdint>

namespace attnlab::model::gelu {

inline constexpr double kSqrt2OverPi = 0.79788456080286535588;
inline constexpr double kCubic = 0.044715;

// exp(x) in float (engine/cpu/exp_float.hpp). Below −87 it gives e^−87 ≈ 1.6e−38, above 80 +inf
// (e^80 ≈ 5.5e34): so neither the result nor σ = 1 / (1 + e) below is ever subnormal (σ is 0 or
// ≥ 1.8e−35), since a subnormal costs a microcode assist per element. σ is exact to float's
// precision wherever it exceeds 1.8e−35.
inline float exp_clamped(float x) {
  // The clamps blend bits instead of selecting: GCC turns a select into separate code for the
  // clamped case, which vectorizes only without -ftrapping-math and then computes the clamped
  // case's products for every element, subnormal ones among them (9× slower than this).
  const auto bits = [](float f) { return std::bit_cast<std::int32_t>(f); };
  const auto blend = [](std::int32_t mask, std::int32_t yes, std::int32_t no) { return (yes & mask) | (no & ~mask); };
  const std::int32_t low = -static_cast<std::int32_t>(x < -87.0f), high = -static_cast<std::int32_t>(x > 80.0f);
  const float e = kernels::exp_in_range(std::bit_cast<float>(blend(low, bits(-87.0f), blend(high, bits(80.0f), bits(x)))));
  return std::bit_cast<float>(blend(high, bits(__builtin_inff()), bits(e)));
}
inline double exp_clamped(double x) { return std::exp(x); }  // double: the formula's own check (gelu_test)

// σ(2u) = 1 / (1 + e^(−2u)) at x.
template <class S>
inline S sigma_2u(S x) {
  const S u = S(kSqrt2OverPi) * (x + S(kCubic) * x * x * x);
  return S(1) / (S(1) + exp_clamped(S(-2) * u));
}

// gelu(x) = x·σ(2u).
template <class S>
inline S value(S x) {
  return x * sigma_2u(x);
}

// gelu′(x) = σ(2u) + 2x·σ(2u)·(1 − σ(2u))·u′, u′ = √(2/π)·(1 + 3·0.044715·x²).
template <class S>
inline S derivative(S x) {
  const S s = sigma_2u(x);
  const S du = S(kSqrt2OverPi) * (S(1) + S(3 * kCubic) * x * x);
  return s + S(2) * x * s * (S(1) - s) * du;
}

// gelu′ at x from the forward's own y = gelu(x) = x·σ(2u): σ(2u) = y/x (½ at x = 0), so a backward
// that has y computes no exponential again: gelu′ = σ + 2y·(1 − σ)·u′. The zero case is arithmetic,
// not a select, so that the loop around it vectorizes (as exp_clamped's clamps above).
template <class S>
inline S derivative_from_value(S x, S y) {
  const S zero = static_cast<S>(x == S(0));
  const S s = y / (x + zero) + S(0.5) * zero;
  const S du = S(kSqrt2OverPi) * (S(1) + S(3 * kCubic) * x * x);
  return s + S(2) * y * (S(1) - s) * du;
}

}  // namespace attnlab::model::gelu
