// The numbers behind each lesson's special view, for `attnlab lesson NAME` and for tests: one
// JSON object per lesson, and a text rendering of it for a terminal.
#pragma once

#include "engine/io/scenario.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace attnlab {

// Computes the lesson's view (its "lesson" object, or the plain pipeline) and returns
// {"name", "title", "view", "description", "text" (the lesson's four parts, filled with this
// scenario's numbers; only for lessons that have them), ...view-specific fields}. Throws InputError.
nlohmann::ordered_json lesson_report(const std::string& name, const Scenario& s);

// The numbers of the lesson's view alone (the view-specific fields of lesson_report), for a result
// `r` of `s`. complete = false leaves out the costly parts a lesson's text does not quote: the d_k
// sweep of a scaling-lab lesson (about half a second) and the precision lesson's 18 emulated runs.
// Throws InputError when the view cannot be computed for these sizes.
nlohmann::ordered_json lesson_view_numbers(const Scenario& s, const Result& r, bool complete);

// Prints a lesson report for a human: sections, aligned matrices, tables, explanation lines.
void write_lesson_text(std::ostream& out, const nlohmann::ordered_json& report);

// A matrix as a JSON list of rows; floats as their shortest decimals, non-finite cells as null.
nlohmann::ordered_json matrix_to_json(const Matrix& M);

// One row of Section 2.3's table, from `attnlab scaling` (ScalingRow) or the scaling lesson's sweep
// (ScalingSweepRow): d_k, and the scores' std and the largest weight, unscaled and scaled.
template <class Row>
nlohmann::ordered_json scaling_row_json(const Row& r) {
  return {{"d_k", r.d_k},
          {"unscaled_std", r.unscaled_std},
          {"scaled_std", r.scaled_std},
          {"unscaled_max_prob", r.unscaled_max_prob},
          {"scaled_max_prob", r.scaled_max_prob}};
}
// A float as the double with its shortest decimal (0.48f -> 0.48, not 0.47999998927116394).
double short_double(float v);

}  // namespace attnlab
