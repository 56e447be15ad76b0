// Scenario files: everything needed to reproduce a view (docs/ARCHITECTURE.md, "Contracts").
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/io/lesson_spec.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab {

struct Scenario {
  std::string title;
  std::string description;  // free text for lessons: what to look at and what to try
  Matrix Q, K, V;
  std::vector<std::string> query_tokens;  // empty, or n labels
  std::vector<std::string> key_tokens;    // empty, or m labels
  Options options;
  // Built-in lessons name a special view here; it never changes the numbers above.
  LessonSpec lesson;

  Problem problem() const { return Problem{Q, K, V, options}; }
  // The problem, with the matrices moved into it (Q, K and V are left empty): for a caller that
  // still needs the title, tokens and options but not the matrices, which a copy would touch again.
  Problem take_problem() { return Problem{std::move(Q), std::move(K), std::move(V), options}; }
};

// Parses scenario JSON text. `source` names the file in error messages. Throws InputError.
Scenario parse_scenario(std::string_view json_text, std::string_view source);
// Reads and parses a scenario file. Throws InputError (missing, unreadable, malformed, ...).
Scenario load_scenario(const std::filesystem::path& path);
// Checks the whole scenario (shapes, tokens, options, mask) and throws InputError naming
// `source` and the field.
void validate_scenario(const Scenario& s, std::string_view source);

// Scenario JSON, one matrix row per line, floats in shortest round-trip form.
std::string scenario_to_json(const Scenario& s);
// Writes atomically (temporary file, then rename). Throws InputError on failure.
void save_scenario(const Scenario& s, const std::filesystem::path& path);

// The JSON object of a mask as in scenario files: {"kind": "padding", "valid": 3}.
std::string mask_to_json(const Mask& mask);

// Token labels for display: the scenario's, or "t1", "t2", ... when none are given.
std::vector<std::string> display_tokens(const std::vector<std::string>& tokens, Eigen::Index count);
// Label i (0-based) of display_tokens(tokens, count), without building the others.
std::string display_token(const std::vector<std::string>& tokens, Eigen::Index count, Eigen::Index i);

}  // namespace attnlab
