// The numbers behind each lesson's special view, for `attnlab lesson NAME` and for tests: one
// JSON object per lesson, and a text rendering of it for a terminal.
#pragma once

#include "engine/io/scenario.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace attnlab {

// Computes the lesson's view (its "lesson" object, or the plain pipeline) and returns
// {"name", "title", "view", "description", ...view-specific fields}. Throws InputError.
nlohmann::ordered_json lesson_report(const std::string& name, const Scenario& s);

// Prints a lesson report for a human: sections, aligned matrices, tables, explanation lines.
void write_lesson_text(std::ostream& out, const nlohmann::ordered_json& report);

// A matrix as a JSON list of rows; floats as their shortest decimals, non-finite cells as null.
nlohmann::ordered_json matrix_to_json(const Matrix& M);
// A float as the double with its shortest decimal (0.48f -> 0.48, not 0.47999998927116394).
double short_double(float v);

}  // namespace attnlab
