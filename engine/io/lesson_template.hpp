// Lesson text templates: numbers in a lesson's text are written as references to the current
// result ("{weights[2][0]:.3f}") and filled in on every recompute, so the text never goes stale.
// The one home of the template syntax, used by the GUI and by `attnlab lesson --format text`.
//
// Syntax: `{path}` or `{path:format}`. A path is a name followed by `.name` or `[index]` steps
// (`weights[2]`, `unscaled.weights[2][0]`, `normalizers.sparsemax.row_sums[0]`); indexes count
// from 0. Formats: `.Nf` (N decimals), `.Ng` (N significant digits), `d` (a whole number). With
// no format a number shows 4 decimals, a whole number none ("1", "0.7071"). `{{` and `}}` are literal
// braces. A list of numbers renders as "(a, b, c)".
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// What a reference shows when it points past the end of a list (the student made a matrix
// smaller) or at a number this result does not have (a streamed result keeps no n × m stages).
inline constexpr const char* kMissingNumber = "—";

// One run of rendered text: literal words, or a number filled from a reference (drawn emphasized).
struct TextSpan {
  std::string text;
  bool number = false;
};

struct RenderedText {
  std::vector<TextSpan> spans;
  std::vector<std::string> unknown;       // references whose name the values do not have
  std::vector<std::string> out_of_range;  // references whose index is past the end of a list
  std::string plain() const;              // the spans joined
};

// Checks the syntax of a template text; throws InputError naming `where` (e.g. "preset three-tokens:
// lesson.look_at[1]") and the reference that is wrong. Returns the paths of its references.
std::vector<std::string> check_template(std::string_view text, std::string_view where);

// Fills every reference of `text` from `values` (a JSON object of numbers, lists and objects).
// Never throws for a reference that does not resolve: it renders as kMissingNumber and is listed
// in `unknown` or `out_of_range`. Throws InputError only for bad syntax (check_template's errors).
RenderedText render_template(std::string_view text, const nlohmann::ordered_json& values, std::string_view where);

// A number as the templates write it with no format: 4 decimals, none for a whole number.
std::string format_template_number(double v, std::string_view format = {});

}  // namespace attnlab
