// Parsing and filling lesson text templates ("{weights[2][0]:.3f}"): see lesson_template.hpp.
#include "engine/io/lesson_template.hpp"
#include "engine/text/text_format.hpp"

#include "engine/attention/matrix.hpp"

#include <cctype>
#include <cmath>
#include <optional>

namespace attnlab {

namespace {

using json = nlohmann::ordered_json;

// One step of a reference's path: a member name or a list index.
struct Step {
  std::string name;  // empty for an index
  long long index = -1;
};

struct Reference {
  std::string source;  // as written between the braces
  std::vector<Step> path;
  std::string format;
};

[[noreturn]] void bad(std::string_view where, std::string_view ref, const std::string& why) {
  throw InputError(std::string(where) + ": the reference {" + std::string(ref) + "} " + why);
}

bool valid_format(std::string_view f) {
  if (f.empty() || f == "d") return true;
  if (f.size() < 3 || f[0] != '.' || (f.back() != 'f' && f.back() != 'g')) return false;
  const std::string_view digits = f.substr(1, f.size() - 2);
  if (digits.empty() || digits.size() > 1) return false;  // 0–9 digits is plenty for a lesson
  return std::isdigit(static_cast<unsigned char>(digits[0])) != 0;
}

Reference parse_reference(std::string_view body, std::string_view where) {
  Reference r;
  r.source = std::string(body);
  const size_t colon = body.find(':');
  std::string_view path = body.substr(0, colon);
  if (colon != std::string_view::npos) {
    r.format = std::string(body.substr(colon + 1));
    if (!valid_format(r.format)) {
      bad(where, body, "has the format '" + r.format + "'; use .Nf (N decimals), .Ng (N digits) or d (whole number)");
    }
  }
  size_t k = 0;
  auto name_at = [&](size_t& pos) {
    const size_t start = pos;
    while (pos < path.size() && (std::isalnum(static_cast<unsigned char>(path[pos])) || path[pos] == '_')) ++pos;
    if (pos == start || std::isdigit(static_cast<unsigned char>(path[start]))) {
      bad(where, body, "needs a name such as weights or output where it has '" + std::string(path.substr(start)) + "'");
    }
    return std::string(path.substr(start, pos - start));
  };
  r.path.push_back({name_at(k), -1});
  while (k < path.size()) {
    if (path[k] == '.') {
      ++k;
      r.path.push_back({name_at(k), -1});
    } else if (path[k] == '[') {
      const size_t close = path.find(']', k);
      if (close == std::string_view::npos) bad(where, body, "opens a '[' that it never closes");
      const std::string_view digits = path.substr(k + 1, close - k - 1);
      if (digits.empty() || digits.size() > 9) bad(where, body, "needs a row or column number from 0 inside [ ]");
      for (const char c : digits)
        if (!std::isdigit(static_cast<unsigned char>(c))) bad(where, body, "needs a row or column number from 0 inside [ ]");
      r.path.push_back({"", std::stoll(std::string(digits))});
      k = close + 1;
    } else {
      bad(where, body, "has '" + std::string(1, path[k]) + "' where a '.', '[' or ':' should be");
    }
  }
  return r;
}

// Splits a template into literal text and references, in order; nullopt marks a literal.
std::vector<std::pair<std::string, std::optional<Reference>>> split(std::string_view text, std::string_view where) {
  std::vector<std::pair<std::string, std::optional<Reference>>> parts;
  std::string literal;
  size_t k = 0;
  while (k < text.size()) {
    const char c = text[k];
    if (c == '{' && k + 1 < text.size() && text[k + 1] == '{') {
      literal += '{';
      k += 2;
    } else if (c == '}' && k + 1 < text.size() && text[k + 1] == '}') {
      literal += '}';
      k += 2;
    } else if (c == '{') {
      const size_t close = text.find('}', k);
      if (close == std::string_view::npos) {
        throw InputError(std::string(where) + ": a '{' opens a reference that never closes (\"" +
                         std::string(text.substr(k, 24)) + "\"); write {{ for a literal brace");
      }
      const std::string_view body = text.substr(k + 1, close - k - 1);
      if (body.find('{') != std::string_view::npos) bad(where, body, "holds another '{'");
      if (!literal.empty()) parts.emplace_back(std::move(literal), std::nullopt);
      literal.clear();
      parts.emplace_back(std::string(), parse_reference(body, where));
      k = close + 1;
    } else if (c == '}') {
      throw InputError(std::string(where) + ": a '}' closes no reference (\"" + std::string(text.substr(k > 20 ? k - 20 : 0, 24)) +
                       "\"); write }} for a literal brace");
    } else {
      literal += c;
      ++k;
    }
  }
  if (!literal.empty()) parts.emplace_back(std::move(literal), std::nullopt);
  return parts;
}

std::string format_value(const json& v, const std::string& format) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return kMissingNumber;
  if (v.is_number_integer() || v.is_number_unsigned()) {
    if (format.empty() || format == "d") return v.dump();
    return format_template_number(v.get<double>(), format);
  }
  if (v.is_number()) return format_template_number(v.get<double>(), format);
  if (v.is_array()) {
    std::string out = "(";
    for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + format_value(v[i], format);
    return out + ")";
  }
  return kMissingNumber;  // an object: no single number to show
}

}  // namespace

std::string RenderedText::plain() const {
  std::string out;
  for (const auto& s : spans) out += s.text;
  return out;
}

std::string format_template_number(double v, std::string_view format) {
  if (!std::isfinite(v)) return format_number(v, NumberUse::Prose);  // "∞", "−∞", "NaN"
  if (format == "d") return fixed_decimals(v, 0);
  if (!format.empty()) {
    const int digits = format[1] - '0';
    return unsigned_zero(format.back() == 'f' ? fixed_decimals(v, digits) : significant(v, digits));
  }
  return format_number(v, NumberUse::LessonText);
}

std::vector<std::string> check_template(std::string_view text, std::string_view where) {
  std::vector<std::string> refs;
  for (const auto& [literal, ref] : split(text, where)) {
    if (ref) refs.push_back(ref->source);
  }
  return refs;
}

RenderedText render_template(std::string_view text, const json& values, std::string_view where) {
  RenderedText out;
  for (const auto& [literal, ref] : split(text, where)) {
    if (!ref) {
      out.spans.push_back({literal, false});
      continue;
    }
    const json* v = &values;
    bool found = true;
    for (const Step& step : ref->path) {
      if (step.name.empty()) {
        if (!v->is_array() || step.index >= static_cast<long long>(v->size())) {
          (v->is_array() ? out.out_of_range : out.unknown).push_back(ref->source);
          found = false;
          break;
        }
        v = &(*v)[static_cast<size_t>(step.index)];
      } else {
        if (!v->is_object() || !v->contains(step.name)) {
          out.unknown.push_back(ref->source);
          found = false;
          break;
        }
        v = &v->at(step.name);
      }
    }
    out.spans.push_back({found ? format_value(*v, ref->format) : std::string(kMissingNumber), true});
  }
  return out;
}

}  // namespace attnlab
