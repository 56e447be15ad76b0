// ln x in float as plain arithmetic that vectorizes, for normal x > 0 (callers keep zeros and
// subnormals away): x = 2^e·m with m in [√½, √2), ln m = 2·atanh t with t = (m − 1)/(m + 1), |t| ≤
// 0.172, by its series to t⁹ (truncation < 7e-10), e·ln 2 in two parts. The head kinds' spread
// score (engine/model/head_kinds.cpp) takes one per kept weight.
//
// `static` for the reason exp_float.hpp gives: each instruction set's copy stays its own.
#pragma once

#include <bit>
#include <cstdint>

namespace attnlab::kernels {

static inline float log_normal(float x) {
  // Subtracting √½'s bits moves the binade's boundary to √½: e is the exponent of x/√½, and the
  // mantissa bits put back on √½'s give m in [√½, √2), without a branch.
  constexpr std::int32_t kSqrtHalf = 0x3f3504f3;
  const std::int32_t shifted = std::bit_cast<std::int32_t>(x) - kSqrtHalf;
  const auto e = static_cast<float>(shifted >> 23);
  const float m = std::bit_cast<float>((shifted & 0x007fffff) + kSqrtHalf);
  const float t = (m - 1.0f) / (m + 1.0f);
  const float t2 = t * t;
  float p = 2.0f / 9.0f;
  p = p * t2 + 2.0f / 7.0f;
  p = p * t2 + 2.0f / 5.0f;
  p = p * t2 + 2.0f / 3.0f;
  p = p * t2 + 2.0f;
  return e * 0.693145751953125f + (e * 1.42860682030941723e-6f + p * t);
}

}  // namespace attnlab::kernels
