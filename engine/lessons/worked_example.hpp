// The worked examples of "13.2 Scaled dot-product attention" and Section 2.3 (view worked-example):
// the by-hand arithmetic of every weight and output row, from the Explain panel's own arithmetic
// (attention/explain.hpp).
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kWorkedExampleView = "worked-example";

// For each query row, each key's lines (explain_weight) and the output's (explain_output).
struct WorkedExampleNumbers : LessonNumbers {
  std::vector<std::vector<std::vector<std::string>>> weight_lines;  // [row][key] lines
  std::vector<std::vector<std::string>> output_lines;                // [row] lines
};

WorkedExampleNumbers compute_worked_example(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// The plain view's numbers and "explain": per row, every score and logit, the row's exps once,
// each quotient, then the output's lines.
nlohmann::ordered_json worked_example_to_json(const WorkedExampleNumbers& n, const Scenario& s, const Result& r,
                                              const LessonDetail& detail);

// The exercise of a worked example (three-tokens, three-tokens-basis): three tokens, d_k = 2, new
// whole-number Q and K, the lesson's own V. Values on the basis vectors (13.2's example): (a) a
// row's scores, (b) its weights, (c) its output, a point whose coordinates are weights. Otherwise
// (Section 2.3's): (a) a row's weights, (b) its output, (c) the key another row attends to most.
Exercise worked_example_exercise(const ExerciseRequest& request);

}  // namespace attnlab
