// The report of a lesson, for `attnlab lesson NAME` and for tests: one JSON object per lesson (its
// view's fields are its page's, lesson_registry.hpp), and a text rendering of it for a terminal.
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace attnlab {

// Computes the lesson's view (its "lesson" object, or the plain pipeline) on the CPU and returns
// {"name", "title", "view", "description", "text" (the lesson's four parts, filled with this
// scenario's numbers; only for lessons that have them), ...view-specific fields}. Throws InputError.
nlohmann::ordered_json lesson_report(const std::string& name, const Scenario& s);

// The numbers of the lesson's view alone (the view-specific fields of lesson_report), for a result
// `r` of `s`, computed on the CPU. complete = false leaves out the costly parts a lesson's text does
// not quote: the d_k sweep of a scaling-lab lesson (about half a second) and the precision lesson's
// 18 emulated runs. Throws InputError when the view cannot be computed for these sizes.
nlohmann::ordered_json lesson_view_numbers(const Scenario& s, const Result& r, bool complete);

// Prints a lesson report for a human: the lesson's text, then the view's fields (by its page's
// writer where it has one, else as sections, aligned matrices, tables and explanation lines).
void write_lesson_text(std::ostream& out, const nlohmann::ordered_json& report);

}  // namespace attnlab
