// e^x in float as plain arithmetic that vectorizes, for x in [−87.3, 88] (each caller clamps in its
// own way): x = k·ln2 + r with |r| ≤ ln2/2, e^r by its degree-7 Taylor polynomial (truncation
// < 6e-9 relative), 2^k through the exponent bits. The softmax kernels (softmax_kernels_impl.cpp)
// and the GELU (engine/model/gelu.hpp) share it.
//
// `static` on purpose: softmax_kernels_impl.cpp is compiled once per instruction set, and each of
// those translation units must keep its own copy, built with its own -m flags; an inline function
// with external linkage would let the linker pick one variant's code for all of them.
#pragma once

#include <bit>
#include <cstdint>

namespace attnlab::kernels {

static inline float exp_in_range(float x) {
  // k = round(x·log2 e) by the 1.5·2^23 trick: adding it pushes the fraction bits out, and unlike
  // roundf this is plain arithmetic that vectorizes on every instruction set. The shifted sum's low
  // bits are k itself, so 2^k's exponent bits come from them in unsigned arithmetic: converting
  // k to an integer would be undefined for a NaN x (clang's UBSan says so; the bits are the same).
  constexpr float kShift = 12582912.0f;
  const float shifted = x * 1.44269504088896341f + kShift;
  const float k = shifted - kShift;
  const float r = (x - k * 0.693145751953125f) - k * 1.42860682030941723e-6f;
  float p = 1.0f / 5040.0f;
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const std::uint32_t biased = std::bit_cast<std::uint32_t>(shifted) - std::bit_cast<std::uint32_t>(kShift) + 127u;
  return p * std::bit_cast<float>(biased << 23);
}

}  // namespace attnlab::kernels
