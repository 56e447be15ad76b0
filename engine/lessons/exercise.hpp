// A lesson's exercise (issue 70; docs/CLI.md, "Exercises"): givens drawn from a seed, small enough to
// work by hand, and two or more parts, each with its expected answer, what each mistake students
// make would have given (recomputed from the same givens) and the worked arithmetic. Every lesson's
// page makes its own (`<view>_exercise`, the last part of the page, a column of the registry);
// exercise_draw.hpp is what they are drawn with, exercise_grade.hpp grades an answer, worksheet.hpp
// prints them for a class. Rows and keys are counted from 0, as in the JSON and the app's matrices;
// tokens keep their names (t1, t2, … where a lesson has no words).
#pragma once

#include "engine/attention/matrix.hpp"
#include "engine/io/scenario.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab {

// What a part asks for. The row kinds and argmax_key name a query row (ExercisePart::row).
enum class PartKind {
  ScoresRow,   // m numbers: a row of Q Kᵀ (rotated by RoPE where the given has it)
  LogitsRow,   // m numbers, null where the mask blocks the key
  WeightsRow,  // m numbers
  OutputRow,   // d_v numbers
  ArgmaxKey,   // one key (0-based): the largest weight of the row
  Blocked,     // the blocked cells, a list of [i, j] in any order
  Number,      // one number
  Matrix,      // n × m numbers (a whole stage)
};
std::string_view part_kind_name(PartKind kind);  // "weights_row"

// The mistakes a wrong answer is matched against. When two of them give the same numbers on an
// exercise, the grader names the first in this order (kMistakeOrder); none matching is arithmetic.
enum class Mistake {
  NoScaling,         // forgot ÷√d_k, or divided by it when the exercise turned scaling off
  DividedByDk,       // ÷d_k instead of ÷√d_k
  NoTemperature,     // left out the temperature T
  NoMask,            // computed the blocked keys as if visible
  MaskAfterSoftmax,  // zeroed the blocked weights after the softmax, without renormalizing
  WrongAxis,         // normalized over the queries (the columns) instead of the keys
  Transposed,        // K Qᵀ instead of Q Kᵀ, or Aᵀ V instead of A V
  Arithmetic,        // none of the above explains it
};
inline constexpr Mistake kMistakeOrder[] = {Mistake::NoScaling,        Mistake::DividedByDk, Mistake::NoTemperature,
                                            Mistake::NoMask,           Mistake::MaskAfterSoftmax,
                                            Mistake::WrongAxis,        Mistake::Transposed};
std::string_view mistake_name(Mistake m);  // "no_scaling"
// One sentence for a student: what that mistake is ("You left out the division by √d_k.").
std::string mistake_sentence(Mistake m);

// An answer, or an expected one: numbers row-major in `shape` ([] one number, [m] a row, [n, m] a
// matrix, [k, 2] k blocked cells). A missing number is a blocked logit (JSON null).
struct AnswerValue {
  std::vector<long long> shape;
  std::vector<std::optional<double>> values;

  static AnswerValue number(double v) { return {{}, {v}}; }
  static AnswerValue row(std::vector<std::optional<double>> v) {
    const long long n = static_cast<long long>(v.size());
    return {{n}, std::move(v)};
  }
  // cells: the [i, j] pairs, in the order given.
  static AnswerValue cells(const std::vector<std::pair<long long, long long>>& cells);
  friend bool operator==(const AnswerValue&, const AnswerValue&) = default;
};

// What one mistake gives for a part, recomputed from the givens.
struct MistakeAnswer {
  Mistake mistake = Mistake::Arithmetic;
  AnswerValue value;
};

struct ExercisePart {
  std::string id;  // "a", "b", … in the order of the parts
  PartKind kind = PartKind::Number;
  std::string prompt;  // one or two sentences, with the decimals asked for
  long long row = -1;  // the query row of the row kinds and argmax_key (0-based); -1 for the others
  // The answer's shape: [] a number or a key, [m] a row, [n, m] a matrix; blocked: [-1, 2] (any
  // number of [i, j] cells; JSON writes -1 as null).
  std::vector<long long> shape;
  // An answer within half a unit of this decimal of the expected one is right (ties at exactly half
  // a unit are right both ways). 0 for counts and keys.
  int decimals = 2;
  AnswerValue expected;
  std::vector<long long> tied_keys;    // argmax_key: every key tied at the largest weight (expected: the first)
  std::vector<MistakeAnswer> mistakes;  // those that differ from the expected, in kMistakeOrder
  std::vector<std::string> working;     // the worked arithmetic, one line each
};

// A matrix the givens show besides Q, K and V (W_O, another head's output), kept in given.extra too.
struct NamedMatrix {
  std::string name;
  MatrixD values;
};

struct Exercise {
  std::string lesson;  // the built-in lesson's name, "three-tokens"
  std::uint64_t seed = 0;
  std::string title;   // the lesson's title
  Scenario given;      // Q, K, V, tokens and options; no lesson object
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();  // given.extra: the lesson's own numbers
  std::vector<NamedMatrix> extra_matrices;  // the matrices of `extra` that a sheet draws
  std::vector<std::string> facts;           // what else a student is told, one sentence each
  std::vector<ExercisePart> parts;
};

// What a page's exercise is made from: the built-in lesson (its name and scenario, whose lesson
// object holds the page's parameters) and the seed.
struct ExerciseRequest {
  std::string_view lesson;
  const Scenario& preset;
  std::uint64_t seed = 0;
};

// The exercise of the built-in lesson `lesson` for `seed`: the same for the same lesson and seed on
// every platform (its numbers come from engine/lessons/random.hpp, never from the standard
// library's distributions). Throws InputError naming the lesson when there is no such lesson.
Exercise make_exercise(std::string_view lesson, std::uint64_t seed);

// The exercise as `attnlab exercise --format json` prints it: {"lesson", "seed", "title", "given"
// (a scenario object plus "extra"), "parts": [{"id", "kind", "prompt", "row", "shape", "decimals"}]}.
// No expected answers.
nlohmann::ordered_json exercise_to_json(const Exercise& e);
// The same for a terminal: the givens as aligned matrices, the facts, each part's prompt and how to
// answer.
void write_exercise_text(std::ostream& out, const Exercise& e);

// What a sheet says of the givens besides the matrices: d_k and the scaling (with the temperature),
// the mask's rule, the normalizer, rotary positions, then the lesson's own facts.
std::vector<std::string> given_facts(const Exercise& e);
// True when a part needs V (an output row): only then are the values shown.
bool shows_values(const Exercise& e);

// A given matrix's numbers as a sheet writes them: the fewest decimals (up to 4) that write every
// entry exactly as drawn, and one entry at that many decimals (never "-0").
int given_decimals(const MatrixD& M);
std::string given_number(double v, int decimals);

// An answer value as JSON: a number, a key, a list (null for a blocked logit) or a list of lists.
nlohmann::ordered_json answer_to_json(const AnswerValue& v, PartKind kind);
// The value as people read it, to `decimals`: "0.40", "(0.40, null, 0.60)", "key 2", "[0, 1], [0, 2]".
std::string answer_text(const AnswerValue& v, PartKind kind, int decimals);

// What a part asks, in a few words for a key or a tab's list: "weights, row 2", "top key, row 1",
// "blocked cells"; empty for a lesson's own number (its prompt says it).
std::string part_label(const ExercisePart& p);

// "row 1 (t2)": a query row as the prompts name it.
std::string query_label(const Exercise& e, Eigen::Index i);
// "key 2 (t3)".
std::string key_label(const Exercise& e, Eigen::Index j);

}  // namespace attnlab
