// Reading matrices and scalars out of parsed JSON with messages that name the file and field.
#pragma once

#include "engine/attention/matrix.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// Parses JSON text; a syntax error becomes InputError "SOURCE: malformed JSON at line L, column C: ...".
nlohmann::json parse_json_text(std::string_view text, std::string_view source);

// A non-empty list of equal-length, non-empty rows of finite float32 numbers.
Matrix json_to_matrix(const nlohmann::json& j, std::string_view source, std::string_view field);
// A list of strings.
std::vector<std::string> json_to_strings(const nlohmann::json& j, std::string_view source, std::string_view field);
// A finite number.
double json_to_number(const nlohmann::json& j, std::string_view source, std::string_view field);
// A whole number.
long long json_to_integer(const nlohmann::json& j, std::string_view source, std::string_view field);

// "[[1,0],[0,1]]" style text, one row per line, indented by `indent` spaces.
std::string matrix_json(const Matrix& M, int indent);

}  // namespace attnlab
