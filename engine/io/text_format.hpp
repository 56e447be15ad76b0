// Number formatting shared by every writer: shortest round-trip floats and JSON strings.
#pragma once

#include <string>
#include <string_view>

namespace attnlab {

// Shortest decimal that reads back as the same float ("0.1", "1e+30"); non-finite -> "null".
std::string float_json(float v);
// Same for doubles.
std::string double_json(double v);
// A JSON string literal with escapes.
std::string json_string(std::string_view s);
// An error message made safe to print as one terminal line: control characters (newlines
// included) and bytes that are not valid UTF-8, which messages may quote from a damaged file,
// become \xNN escapes.
std::string one_line(std::string_view message);
// v with exactly `decimals` digits after the point ("%.*f"): tables and read-outs for people.
std::string fixed_decimals(double v, int decimals);

}  // namespace attnlab
