// Shortest round-trip number formatting and JSON string escaping.
#include "engine/text_format.hpp"

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

}  // namespace attnlab
