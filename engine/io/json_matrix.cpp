// JSON <-> matrix conversion with precise error sentences.
#include "engine/io/json_matrix.hpp"

#include "engine/text/text_format.hpp"

#include <cmath>
#include <limits>

namespace attnlab {

namespace {

std::string type_word(const nlohmann::json& j) {
  if (j.is_null()) return "null";
  if (j.is_boolean()) return "a boolean";
  if (j.is_string()) return "a string (\"" + j.get<std::string>().substr(0, 20) + "\")";
  if (j.is_array()) return "a list";
  if (j.is_object()) return "an object";
  return "a number";
}

std::string prefix(std::string_view source, std::string_view field) {
  return std::string(source) + ": " + std::string(field);
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, std::string_view source) {
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // Locate the byte the parser stopped at as line and column.
    const size_t at = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    size_t line = 1, col = 1;
    for (size_t i = 0; i < at; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string why = e.what();
    const auto dash = why.rfind(" - ");
    if (dash != std::string::npos) why = why.substr(dash + 3);
    if (text.find("NaN") != std::string_view::npos || text.find("Infinity") != std::string_view::npos) {
      why += " (NaN and Infinity are not JSON numbers)";
    }
    throw InputError(std::string(source) + ": malformed JSON at line " + std::to_string(line) + ", column " +
                     std::to_string(col) + ": " + why);
  } catch (const nlohmann::json::exception& e) {
    // Numbers too large for a double ("1e400") come out as out_of_range, not parse_error.
    std::string why = e.what();
    const auto bracket = why.find("] ");
    if (bracket != std::string::npos) why = why.substr(bracket + 2);
    throw InputError(std::string(source) + ": malformed JSON: " + why + " (numbers must fit in a double)");
  }
}

Matrix json_to_matrix(const nlohmann::json& j, std::string_view source, std::string_view field) {
  if (!j.is_array()) {
    throw InputError(prefix(source, field) + " must be a list of rows of numbers, not " + type_word(j));
  }
  if (j.empty()) throw InputError(prefix(source, field) + " is empty; it needs at least one row");
  const size_t rows = j.size();
  if (!j[0].is_array()) {
    throw InputError(prefix(source, field) + " row 1 must be a list of numbers, not " + type_word(j[0]));
  }
  const size_t cols = j[0].size();
  if (cols == 0) throw InputError(prefix(source, field) + " row 1 is empty; rows need at least one number");
  Matrix M(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
  for (size_t r = 0; r < rows; ++r) {
    const auto& row = j[r];
    if (!row.is_array()) {
      throw InputError(prefix(source, field) + " row " + std::to_string(r + 1) + " must be a list of numbers, not " +
                       type_word(row));
    }
    if (row.size() != cols) {
      throw InputError(prefix(source, field) + " row " + std::to_string(r + 1) + " has " + std::to_string(row.size()) +
                       " numbers but row 1 has " + std::to_string(cols) + "; every row needs the same length");
    }
    for (size_t c = 0; c < cols; ++c) {
      const auto& v = row[c];
      const std::string where = prefix(source, field) + "[" + std::to_string(r) + "][" + std::to_string(c) + "]";
      if (!v.is_number()) throw InputError(where + " must be a number, not " + type_word(v));
      const double d = v.get<double>();
      if (!fits_float(d)) {
        throw InputError(where + " is outside the float32 range (about ±3.4e38)");
      }
      M(static_cast<Eigen::Index>(r), static_cast<Eigen::Index>(c)) = static_cast<float>(d);
    }
  }
  return M;
}

std::vector<std::string> json_to_strings(const nlohmann::json& j, std::string_view source, std::string_view field) {
  if (!j.is_array()) throw InputError(prefix(source, field) + " must be a list of strings, not " + type_word(j));
  std::vector<std::string> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_string()) {
      throw InputError(prefix(source, field) + "[" + std::to_string(i) + "] must be a string, not " + type_word(j[i]));
    }
    out.push_back(j[i].get<std::string>());
  }
  return out;
}

double json_to_number(const nlohmann::json& j, std::string_view source, std::string_view field) {
  if (!j.is_number()) throw InputError(prefix(source, field) + " must be a number, not " + type_word(j));
  const double d = j.get<double>();
  if (!std::isfinite(d)) throw InputError(prefix(source, field) + " must be a finite number");
  return d;
}

long long json_to_integer(const nlohmann::json& j, std::string_view source, std::string_view field) {
  if (j.is_number_unsigned()) {
    // Above LLONG_MAX the conversion would wrap to a negative number and blame the wrong thing.
    const auto u = j.get<unsigned long long>();
    return u > static_cast<unsigned long long>(std::numeric_limits<long long>::max()) ? std::numeric_limits<long long>::max()
                                                                                     : static_cast<long long>(u);
  }
  if (j.is_number_integer()) return j.get<long long>();
  if (j.is_number_float()) {
    const double d = j.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::abs(d) < 1e15) return static_cast<long long>(d);
  }
  throw InputError(prefix(source, field) + " must be a whole number, not " + type_word(j));
}

std::string matrix_json(const Matrix& M, int indent) {
  const std::string pad(static_cast<size_t>(indent), ' ');
  std::string out = "[";
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    out += i == 0 ? "\n" : ",\n";
    out += pad + "  [";
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (j) out += ", ";
      out += float_json(M(i, j));
    }
    out += "]";
  }
  out += "\n" + pad + "]";
  return out;
}

}  // namespace attnlab
