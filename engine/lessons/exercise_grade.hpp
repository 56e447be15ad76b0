// Grading an exercise (docs/CLI.md, "Exercises"): an answer within the rounding of a part's decimals
// is right; a wrong one is matched against each mistake's numbers, recomputed from the givens, in
// kMistakeOrder (the first that matches is named; none is arithmetic), then the part's worked
// arithmetic follows. The app's Exercise tab grades one part at a time (grade_part); the command
// line reads a whole answer file (parse_answers, grade_exercise).
#pragma once

#include "engine/lessons/exercise.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// Answers by part id.
using Answers = std::map<std::string, AnswerValue>;

// One part's answer read from its JSON value: a number; a key (a whole number from 0 to m − 1); a
// list of shape[0] numbers (null allowed in a logits row, for a blocked key); a list of rows; a list of
// [i, j] cells inside the n × m grid. Throws InputError, one sentence naming `where` and the part, for
// anything else (text, a missing number, a wrong length, a key outside the row).
AnswerValue parse_part_answer(const nlohmann::json& value, const ExercisePart& part, const Exercise& e,
                              std::string_view where);
// {"parts": {"<id>": value, …}} with every part of `e` and no other. Throws InputError naming
// `source` and the part: not JSON, a missing or unknown part, a malformed value.
Answers parse_answers(std::string_view json_text, const Exercise& e, std::string_view source);

struct PartGrade {
  std::string id;
  PartKind kind = PartKind::Number;
  int decimals = 2;
  bool correct = false;
  AnswerValue expected, given;
  std::optional<Mistake> diagnosis;  // empty when correct
  std::string verdict;               // one sentence: right, or what went wrong
  std::vector<std::string> working;  // the part's worked arithmetic
};

// Grades one answer of the part's shape (parse_part_answer's).
PartGrade grade_part(const ExercisePart& part, const AnswerValue& answer);

struct Grade {
  std::string lesson;
  std::uint64_t seed = 0;
  int score = 0, of = 0;
  std::vector<PartGrade> parts;
};
// Every part of `e`, in order, graded against `answers` (which hold them all).
Grade grade_exercise(const Exercise& e, const Answers& answers);

// {"lesson", "seed", "score", "of", "parts": [{"id", "correct", "expected", "given", "diagnosis",
// "explanation"}]}: diagnosis null when correct; explanation the verdict, then the working.
nlohmann::ordered_json grade_to_json(const Grade& g);
// The same for a terminal.
void write_grade_text(std::ostream& out, const Grade& g);

}  // namespace attnlab
