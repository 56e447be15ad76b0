// float32, float16 and bfloat16: names, rounding and bit patterns.
#include "engine/attention/float_format.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/attention/enum_names.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace attnlab {

namespace {

constexpr EnumNames<Precision, 3> kNames({"float32", "float16", "bfloat16"});
constexpr EnumNames<Precision, 3> kSafetensorsDtypes({"F32", "F16", "BF16"});

struct Format {
  int precision_bits;  // significand bits including the implicit one
  int emin, emax;
};
constexpr Format kFormats[] = {{24, -126, 127}, {11, -14, 15}, {8, -126, 127}};

const Format& format_of(Precision p) { return kFormats[static_cast<std::size_t>(p)]; }

double max_finite_of(const Format& f) {
  return (2.0 - std::ldexp(1.0, 1 - f.precision_bits)) * std::ldexp(1.0, f.emax);
}

}  // namespace

std::string_view precision_name(Precision p) { return kNames[p]; }
std::string_view safetensors_dtype(Precision p) { return kSafetensorsDtypes[p]; }
std::optional<Precision> precision_of_safetensors_dtype(std::string_view dtype) { return kSafetensorsDtypes.find(dtype); }
std::size_t bytes_per_value(Precision p) { return p == Precision::Float32 ? 4 : 2; }

Precision parse_precision(std::string_view name, std::string_view where) {
  return kNames.parse(name, where, "precision");
}

float round_to(Precision p, double x) {
  if (std::isnan(x)) return std::numeric_limits<float>::quiet_NaN();
  if (std::isinf(x) || x == 0) return static_cast<float>(x);
  const Format& f = format_of(p);
  const double a = std::fabs(x);
  int k = 0;
  std::frexp(a, &k);  // a = m · 2^k, m in [0.5, 1): a lies in [2^(k−1), 2^k)
  const int e = std::max(k - 1, f.emin);  // below emin the spacing stays that of the subnormals
  const double quantum = std::ldexp(1.0, e - f.precision_bits + 1);
  const double r = std::nearbyint(a / quantum) * quantum;  // ties to even in the default mode
  if (r > max_finite_of(f)) return static_cast<float>(std::copysign(std::numeric_limits<double>::infinity(), x));
  return static_cast<float>(std::copysign(r, x));
}

FormatLimits format_limits(Precision p) {
  const Format& f = format_of(p);
  FormatLimits l;
  l.max_finite = max_finite_of(f);
  l.exp_overflow = std::log(l.max_finite);
  const double smallest_subnormal = std::ldexp(1.0, f.emin - f.precision_bits + 1);
  l.exp_underflow = std::log(smallest_subnormal / 2);
  l.minus_1e9 = round_to(p, -1e9);
  return l;
}

float half_to_float(std::uint16_t h) {
  const int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  const float sign = (h & 0x8000u) ? -1.0f : 1.0f;
  if (exp == 0x1f) return mant ? std::numeric_limits<float>::quiet_NaN() : sign * std::numeric_limits<float>::infinity();
  // A normal half is (1024 + mant) · 2^(exp − 25); a subnormal one mant · 2^−24.
  return sign * (exp ? std::ldexp(static_cast<float>(1024 + mant), exp - 25) : std::ldexp(static_cast<float>(mant), -24));
}

float bfloat16_to_float(std::uint16_t b) {
  const std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

std::uint16_t float_to_half(float f) {
  const std::uint16_t sign = std::signbit(f) ? 0x8000u : 0;
  const double r = std::fabs(static_cast<double>(round_to(Precision::Float16, f)));  // a half, exactly
  if (std::isnan(r)) return sign | 0x7e00u;
  if (std::isinf(r)) return sign | 0x7c00u;
  if (r < std::ldexp(1.0, -14)) return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(r, 24)));
  int k = 0;
  std::frexp(r, &k);  // r lies in [2^(k−1), 2^k): biased exponent k − 1 + 15
  const auto mant = static_cast<std::uint16_t>(std::ldexp(r, 11 - k) - 1024);
  return static_cast<std::uint16_t>(sign | ((k + 14) << 10) | mant);
}

}  // namespace attnlab
