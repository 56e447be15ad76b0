// The floating-point formats attention runs in: float32, and the two 16-bit formats models are
// stored and trained in. One home for their names, sizes, rounding and bit patterns: the precision
// lesson (engine/lessons/precision.hpp) emulates attention in them, and the safetensors reader
// (engine/model/safetensors.hpp) decodes weights stored in them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace attnlab {

enum class Precision { Float32, Float16, BFloat16 };

std::string_view precision_name(Precision p);  // "float32", "float16", "bfloat16"
// The safetensors dtype of the format: "F32", "F16", "BF16".
std::string_view safetensors_dtype(Precision p);
std::optional<Precision> precision_of_safetensors_dtype(std::string_view dtype);
// Bytes per value: 4 or 2.
std::size_t bytes_per_value(Precision p);
// The format named `name` (precision_name's words); InputError naming `where` otherwise.
Precision parse_precision(std::string_view name, std::string_view where);

// Rounds a value to the nearest value of the format (ties to even), with overflow to ±∞,
// float16 subnormals, and NaN kept. The result is returned as a float that holds it exactly.
float round_to(Precision p, double x);

// Facts about a format that decide where attention breaks.
struct FormatLimits {
  double max_finite = 0;        // largest finite value
  double exp_overflow = 0;      // exp(x) is +∞ for x above this (ln of max_finite)
  double exp_underflow = 0;     // exp(x) rounds to 0 below this (ln of half the smallest subnormal)
  double minus_1e9 = 0;         // −1e9 as stored (−∞ in float16)
};
FormatLimits format_limits(Precision p);

// IEEE half and bfloat16 bit patterns to float, exactly (every one of them is a float).
float half_to_float(std::uint16_t h);
float bfloat16_to_float(std::uint16_t b);
// The half nearest f (round_to's rounding), as its bit pattern (for writers and tests).
std::uint16_t float_to_half(float f);

}  // namespace attnlab
