// What Debian's emscripten 3.1.6 lacks of C++20's library (its libc++ is older than its clang 14),
// given to every browser-build file by cmake/Web.cmake (-include), so the engine's code stays plain
// C++20. Each piece steps aside once the library has it (its feature-test macro). The floating-point
// <charconv> here keeps std's contract: to_chars writes the shortest text that reads back to the
// same value (fixed or scientific, whichever is shorter, fixed on a tie), from_chars reads what
// to_chars writes without skipping spaces or accepting a '+'.
#pragma once

#ifdef __cplusplus
#include <version>

#if !defined(__cpp_lib_bit_cast)
#include <type_traits>
namespace std {
// C++20's std::bit_cast, on the compiler's builtin (what libc++ itself uses).
template <class To, class From>
  requires(sizeof(To) == sizeof(From) && is_trivially_copyable_v<To> && is_trivially_copyable_v<From>)
constexpr To bit_cast(const From& from) noexcept {
  return __builtin_bit_cast(To, from);
}
}  // namespace std
#endif

#if !defined(__cpp_lib_to_chars)
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

namespace attnlab_libcxx_compat {

template <class T>
T read_back(const char* s) {
  if constexpr (sizeof(T) == sizeof(float)) return std::strtof(s, nullptr);
  else return std::strtod(s, nullptr);
}

template <class T>
std::to_chars_result shortest_to_chars(char* first, char* last, T value) {
  char text[64];
  if (!std::isfinite(value)) {
    std::snprintf(text, sizeof text, "%s", std::isnan(value) ? (std::signbit(value) ? "-nan" : "nan")
                                                             : (value < 0 ? "-inf" : "inf"));
  } else {
    // The fewest significant digits that read back to the same value...
    constexpr int max_digits = sizeof(T) == sizeof(float) ? 9 : 17;
    char sci[64];
    int digits = 1;
    for (; digits < max_digits; ++digits) {
      std::snprintf(sci, sizeof sci, "%.*e", digits - 1, static_cast<double>(value));
      if (read_back<T>(sci) == value) break;
    }
    std::snprintf(sci, sizeof sci, "%.*e", digits - 1, static_cast<double>(value));
    // ...written fixed, with exactly those digits, when that is not longer.
    const int exponent = std::atoi(std::strchr(sci, 'e') + 1);
    const int decimals = digits - 1 - exponent > 0 ? digits - 1 - exponent : 0;
    char fixed[400];
    std::snprintf(fixed, sizeof fixed, "%.*f", decimals, static_cast<double>(value));
    std::snprintf(text, sizeof text, "%s", std::strlen(fixed) <= std::strlen(sci) ? fixed : sci);
    if (std::strlen(fixed) > sizeof text - 1 && std::strlen(fixed) <= std::strlen(sci)) {
      std::snprintf(text, sizeof text, "%s", sci);  // cannot happen for float or double; stay safe
    }
  }
  const std::size_t n = std::strlen(text);
  if (static_cast<std::size_t>(last - first) < n) return {last, std::errc::value_too_large};
  std::memcpy(first, text, n);
  return {first + n, std::errc()};
}

template <class T>
std::from_chars_result from_chars_float(const char* first, const char* last, T& value) {
  if (first == last || *first == '+' || *first == ' ' || *first == '\t' || *first == '\n' || *first == '\r' ||
      *first == '\f' || *first == '\v') {
    return {first, std::errc::invalid_argument};
  }
  const std::string text(first, last);  // strtod needs a terminated string
  char* end = nullptr;
  errno = 0;
  T parsed;
  if constexpr (sizeof(T) == sizeof(float)) parsed = std::strtof(text.c_str(), &end);
  else parsed = std::strtod(text.c_str(), &end);
  if (end == text.c_str()) return {first, std::errc::invalid_argument};
  const char* stop = first + (end - text.c_str());
  if (errno == ERANGE && (std::isinf(parsed) || parsed == 0)) return {stop, std::errc::result_out_of_range};
  value = parsed;
  return {stop, std::errc()};
}

}  // namespace attnlab_libcxx_compat

namespace std {
inline to_chars_result to_chars(char* first, char* last, float value) {
  return attnlab_libcxx_compat::shortest_to_chars(first, last, value);
}
inline to_chars_result to_chars(char* first, char* last, double value) {
  return attnlab_libcxx_compat::shortest_to_chars(first, last, value);
}
inline from_chars_result from_chars(const char* first, const char* last, float& value) {
  return attnlab_libcxx_compat::from_chars_float(first, last, value);
}
inline from_chars_result from_chars(const char* first, const char* last, double& value) {
  return attnlab_libcxx_compat::from_chars_float(first, last, value);
}
}  // namespace std
#endif
#endif
