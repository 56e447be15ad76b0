// A lesson's text filled with the current numbers: the values its templates can name, the four
// parts rendered, and whether the student has changed the lesson's scenario. Shared by the GUI's
// Lesson panel and `attnlab lesson`.
#pragma once

#include "engine/io/lesson_template.hpp"
#include "engine/io/scenario.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace attnlab {

// Everything a lesson's templates can refer to, from the scenario and its result:
//   n, m, d_k, d_v, divisor (s: √d_k or 1), temperature, effective_temperature (s·T), Q, K, V,
//   scores, logits, weights, output, saturation (n × m lists; −∞ logits as "−∞"),
//   exps (exp of each logit, 0 where blocked), exp_sums and row_sums (per row), max_score and
//   max_logit (the largest finite one), max_weight,
//   entropy, effective_keys (per row), scores_std and logits_std (population std),
// plus the numbers of the lesson's own view, as `attnlab lesson NAME --format json` names them
// (unscaled.weights, normalizers.sparsemax.weights, this_lesson.output_rank, …). The view's
// numbers are left out for large scenarios (over 65536 cells): references to them render as "—".
nlohmann::ordered_json lesson_values(const Scenario& s, const Result& r);

// Every reference in the lesson's text ("weights[2]:.3f"), as written between the braces.
std::vector<std::string> lesson_references(const LessonText& t);

struct RenderedLesson {
  RenderedText goal;
  std::vector<RenderedText> look_at, try_steps;
  std::vector<RenderedText> course_notes;  // empty unless the numbers are the original ones
  std::string source;                      // source_line() of the lesson
  std::vector<LessonKey> keys;
  bool edited = false;        // the scenario's numbers differ from the built-in lesson's
  bool has_notes = false;     // the lesson has course notes (shown or hidden)
};

// Renders every part of s.lesson.text against `values`. `edited` hides the course notes, which
// are true only for the original numbers. Throws InputError only for bad template syntax.
RenderedLesson render_lesson_text(const Scenario& s, const nlohmann::ordered_json& values, bool edited = false);

// {"goal", "look_at", "try", "source", "course_notes", "edited"} as plain strings, for JSON output.
nlohmann::ordered_json lesson_text_json(const RenderedLesson& t);

// The built-in lesson a scenario came from (same title) and whether its numbers were changed
// since: Q, K, V, tokens, scaling, temperature, mask or normalizer. preset is empty for a
// scenario that is no built-in lesson.
struct LessonOrigin {
  std::string preset;
  bool edited = false;
};
LessonOrigin lesson_origin(const Scenario& s);
// True when the two scenarios compute the same numbers with the same labels.
bool same_numbers(const Scenario& a, const Scenario& b);

// Checks that every reference in the lesson's text names a number of its scenario, and none points
// past the end of a list; throws InputError naming `source`, the part and the reference.
void check_lesson_references(const Scenario& s, std::string_view source);

}  // namespace attnlab
