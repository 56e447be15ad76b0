// Shortest round-trip numbers, JSON string escaping, and the numbers people read.
#include "engine/io/text_format.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace attnlab {

std::string float_json(float v) {
  if (!std::isfinite(v)) return "null";
  // "-0" would read back as the integer 0 and lose the sign; "-0.0" reads back as −0.
  if (v == 0 && std::signbit(v)) return "-0.0";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

std::string double_json(double v) {
  if (!std::isfinite(v)) return "null";
  if (v == 0 && std::signbit(v)) return "-0.0";
  char buf[40];
  const auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
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

std::string fixed_decimals(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

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

std::string decimal_bytes(double bytes) {
  if (bytes < 1000) return fixed_decimals(bytes, 0) + " B";
  return scaled(bytes / 1000, 1000, {"kB", "MB", "GB", "TB", "PB", "EB"});
}

}  // namespace attnlab
