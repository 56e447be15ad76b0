// Shortest round-trip numbers, JSON string escaping, and the numbers people read: every printf
// format of a number in the code is here (engine/text/text_format.hpp).
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace attnlab {

namespace {

// The shortest decimals that read back as the same float or double, written at `out` (40 chars of
// room); returns their end.
template <class Float>
char* shortest_json(Float v, char* out) {
  const auto copy = [out](std::string_view text) { return std::copy(text.begin(), text.end(), out); };
  if (!std::isfinite(v)) return copy("null");
  // "-0" would read back as the integer 0 and lose the sign; "-0.0" reads back as −0.
  if (v == 0 && std::signbit(v)) return copy("-0.0");
  return std::to_chars(out, out + 40, v).ptr;
}

}  // namespace

std::string float_json(float v) {
  char buf[40];
  return std::string(buf, shortest_json(v, buf));
}

std::string double_json(double v) {
  char buf[40];
  return std::string(buf, shortest_json(v, buf));
}

void append_float_json(std::string& out, float v) {
  char buf[40];
  out.append(buf, shortest_json(v, buf));
}

namespace {

// std::to_chars's shortest decimals of v at `out` (40 chars of room); returns their end.
template <class Float>
char* shortest_chars(Float v, char* out) {
  const auto [end, ec] = std::to_chars(out, out + 40, v);
  return ec == std::errc() ? end : out;
}

}  // namespace

std::string shortest_decimals(float v) {
  char buf[40];
  return std::string(buf, shortest_chars(v, buf));
}

std::string shortest_decimals(double v) {
  char buf[40];
  return std::string(buf, shortest_chars(v, buf));
}

void append_shortest_decimals(std::string& out, float v) {
  char buf[40];
  out.append(buf, shortest_chars(v, buf));
}

std::string json_string(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string one_line(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  auto escape = [&](unsigned char c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02X", c);
    out += buf;
  };
  for (size_t i = 0; i < message.size();) {
    const auto c = static_cast<unsigned char>(message[i]);
    if (c < 0x80) {
      if (c < 0x20 || c == 0x7f) escape(c);
      else out += static_cast<char>(c);
      ++i;
      continue;
    }
    // Length of a well-formed UTF-8 sequence starting here (RFC 3629 lead bytes), else 0.
    size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    if (len == 0 || i + len > message.size()) len = 0;
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(message[i + k]) & 0xC0) != 0x80) len = 0;
    }
    if (len == 0) {
      escape(c);
      ++i;
    } else {
      out.append(message.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::string in_quotes(std::string_view s, std::size_t max_bytes) {
  return "'" + one_line(s.substr(0, max_bytes)) + (s.size() > max_bytes ? "…'" : "'");
}

std::string count_of(long long n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

std::string fixed_decimals(double v, int decimals) { return fixed_decimals(v, decimals, 0); }

std::string fixed_decimals(double v, int decimals, int width) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%*.*f", width, decimals, v);
  return buf;
}

std::string percent(double pct, int decimals, int width) { return fixed_decimals(pct, decimals, width) + "%"; }

std::string trimmed_decimals(double v, int decimals) {
  if (std::isinf(v)) return v < 0 ? "−∞" : "∞";
  if (std::isnan(v)) return "NaN";
  std::string s = fixed_decimals(v, decimals);
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

std::string unsigned_zero(std::string s) {
  if (!s.empty() && s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);
  return s;
}

namespace {

std::string cell_number(double v, int decimals, const Glyphs& g) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? std::string(g.minus) + g.infinity : g.infinity;
  char buf[32];
  const double a = std::abs(v);
  if (a >= 1000) std::snprintf(buf, sizeof buf, "%.3g", v);
  else if (a >= 100) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (a >= 10) std::snprintf(buf, sizeof buf, "%.*f", std::max(0, decimals - 1), v);
  else std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return unsigned_zero(buf);
}

std::string axis_number(double v, int decimals, const Glyphs& g) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? std::string(g.minus) + g.infinity : g.infinity;
  std::string s = unsigned_zero(fixed_decimals(v, decimals));
  return s[0] == '-' ? g.minus + s.substr(1) : s;
}

std::string latex_number(double v, int decimals) {
  if (std::isinf(v)) return v < 0 ? "-\\infty" : "\\infty";
  return unsigned_zero(fixed_decimals(v, decimals));
}

std::string statistic_number(double v, int decimals) {
  if (std::isfinite(v) && std::fabs(v) >= 1e7) return scientific(v, 3);
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) return "undefined";  // the mean of cells at +inf and at -inf
  return fixed_decimals(v, decimals);
}

// "1.0000" -> "1" as the course texts write whole numbers; other numbers keep all their decimals,
// so that a row reads evenly ("0.3610, 0.1250, 0.5141", not "0.361, 0.125, 0.5141").
std::string lesson_text_number(double v) {
  if (!std::isfinite(v)) return hand_number(v);  // "∞", "−∞", "NaN", as Prose
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-4)) return significant(v, 3);
  std::string s = fixed_decimals(v, 4);
  const size_t dot = s.find('.');
  if (dot == std::string::npos || s.find_first_not_of('0', dot + 1) != std::string::npos) return s;
  s.erase(dot);
  return s == "-0" ? "0" : s;
}

// No special case for infinities or NaN: %.4g writes them "inf", "-inf", "nan".
std::string lesson_report_number(double v) {
  const double a = std::fabs(v);
  if (a != 0 && (a >= 1e6 || a < 1e-3)) return significant(v, 4);
  return fixed_decimals(v, 4);
}

std::string terminal_number(double v, int decimals) {
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  if (std::isnan(v)) return "nan";
  const double a = std::abs(v);
  if (a != 0 && (a >= 1e6 || a < std::pow(10.0, -decimals) * 0.5)) return scientific(v, 3);
  return fixed_decimals(v, decimals);
}

}  // namespace

std::string format_number(double v, NumberUse use, int decimals) { return format_number(v, use, decimals, Glyphs{}); }

std::string format_number(double v, NumberUse use, int decimals, const Glyphs& glyphs) {
  switch (use) {
    case NumberUse::Cell: return cell_number(v, decimals, glyphs);
    case NumberUse::Axis: return axis_number(v, decimals, glyphs);
    case NumberUse::Latex: return latex_number(v, decimals);
    case NumberUse::Terminal: return terminal_number(v, decimals);
    case NumberUse::Statistic: return statistic_number(v, decimals);
    case NumberUse::Prose: return hand_number(v);
    case NumberUse::Json: return double_json(v);
    case NumberUse::LessonText: return lesson_text_number(v);
    case NumberUse::LessonReport: return lesson_report_number(v);
  }
  return double_json(v);
}

std::string hand_number(double v) {
  const double a = std::fabs(v);
  if (std::isfinite(v) && a != 0 && (a >= 1e7 || a < 5e-5)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
  }
  return trimmed_decimals(v, 4);
}

namespace {

// "%.2f" below 10, "%.1f" below 100, "%.0f" above: three figures, whatever the unit.
std::string three_figures(double v, const char* unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, unit);
  return buf;
}

// v in units[0], moved up while it reaches `base`.
std::string scaled(double v, double base, const std::array<const char*, 6>& units) {
  size_t u = 0;
  while (v >= base && u + 1 < units.size()) {
    v /= base;
    ++u;
  }
  return three_figures(v, units[u]);
}

}  // namespace

std::string human_bytes(double bytes) {
  if (bytes < 1024) return fixed_decimals(bytes, 0) + " B";
  return scaled(bytes / 1024, 1024, {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"});
}

std::string both_units(double bytes) { return human_bytes(bytes) + " (" + decimal_bytes(bytes) + ")"; }

std::string count_in_words(double v) {
  char buf[48];
  if (v >= 1e9) std::snprintf(buf, sizeof buf, "%.3g billion", v / 1e9);
  else if (v >= 1e6) std::snprintf(buf, sizeof buf, "%.3g million", v / 1e6);
  else std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string three_digits(double v) { return significant(v, 3); }

std::string significant(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string scientific(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits, v);
  return buf;
}

std::string bytes_in(double bytes, ByteUnit unit, int decimals) {
  static constexpr std::array<const char*, 4> kNames = {"B", "KiB", "MiB", "GiB"};
  const int power = static_cast<int>(unit);
  return fixed_decimals(bytes / std::ldexp(1.0, 10 * power), decimals) + " " + kNames[static_cast<size_t>(power)];
}

namespace {

// `label` with '%' doubled, then "%.<n><conversion>": the format ImGui's widgets draw with.
std::string widget_format(std::string_view label, int n, char conversion) {
  std::string out;
  for (const char c : label) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out + "%." + std::to_string(n) + conversion;
}

}  // namespace

std::string widget_decimals(int decimals, std::string_view label) { return widget_format(label, decimals, 'f'); }
std::string widget_significant(int digits, std::string_view label) { return widget_format(label, digits, 'g'); }

const char* minus_infinity(bool unicode_font) { return unicode_font ? "−∞" : "-inf"; }

std::string decimal_bytes(double bytes) {
  if (bytes < 1000) return fixed_decimals(bytes, 0) + " B";
  return scaled(bytes / 1000, 1000, {"kB", "MB", "GB", "TB", "PB", "EB"});
}

}  // namespace attnlab
