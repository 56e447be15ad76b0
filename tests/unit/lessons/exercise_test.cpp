// Exercises (engine/lessons/exercise*.hpp): the grader's edge cases (the rounding boundary, blocked
// logits as null, argmax ties, the order between mistakes that give the same numbers), malformed
// answers, every lesson's exercise (parts, shapes, determinism), and the exercise's own arithmetic
// in double against the engine's float32 result within the bounds of tests/support.
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/exercise_grade.hpp"
#include "engine/lessons/presets.hpp"
#include "support/attention_bounds.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

namespace attnlab {
namespace {

// A part answering one number, built by hand.
ExercisePart number_part(double expected, int decimals) {
  ExercisePart p;
  p.id = "a";
  p.kind = PartKind::Number;
  p.decimals = decimals;
  p.expected = AnswerValue::number(expected);
  return p;
}

bool right(const ExercisePart& p, const AnswerValue& a) { return grade_part(p, a).correct; }

// The first part of `e` of this kind.
const ExercisePart& part_of(const Exercise& e, PartKind kind) {
  for (const ExercisePart& p : e.parts) {
    if (p.kind == kind) return p;
  }
  throw std::logic_error("no such part");
}

std::vector<std::string> lessons() {
  std::vector<std::string> out;
  for (const PresetInfo& p : list_presets()) out.push_back(p.name);
  return out;
}

TEST(ExerciseGrade, AcceptsWithinHalfAUnitOfTheLastDecimal) {
  for (const int decimals : {0, 1, 2, 3}) {
    const double half = 0.5 * std::pow(10.0, -decimals);
    const double expected = 1.2345678;
    const ExercisePart p = number_part(expected, decimals);
    for (const double sign : {-1.0, 1.0}) {
      EXPECT_TRUE(right(p, AnswerValue::number(expected + sign * half * 0.999))) << decimals;
      EXPECT_FALSE(right(p, AnswerValue::number(expected + sign * half * 1.001))) << decimals;
    }
  }
}

TEST(ExerciseGrade, ATieAtHalfAUnitIsRightBothWays) {
  // 0.125 to 2 decimals rounds to 0.12 or 0.13 by the rule one follows: both are right, 0.13 + a
  // hair is not.
  const ExercisePart p = number_part(0.125, 2);
  EXPECT_TRUE(right(p, AnswerValue::number(0.12)));
  EXPECT_TRUE(right(p, AnswerValue::number(0.13)));
  EXPECT_FALSE(right(p, AnswerValue::number(0.1301)));
  EXPECT_FALSE(right(p, AnswerValue::number(0.1199)));
}

TEST(ExerciseGrade, BlockedLogitsAreNull) {
  const Exercise e = make_exercise("causal-six", 4);
  const ExercisePart& logits = part_of(e, PartKind::LogitsRow);
  long long nulls = 0;
  for (long long j = 0; j < logits.shape[0]; ++j) {
    const bool blocked = e.given.options.mask.is_blocked(logits.row, j);
    EXPECT_EQ(!logits.expected.values[static_cast<size_t>(j)].has_value(), blocked) << j;
    nulls += blocked;
  }
  ASSERT_GT(nulls, 0) << "the row asked has a blocked key";
  EXPECT_TRUE(right(logits, logits.expected));
  // The blocked keys' logits written as numbers: the mask was left out.
  const WorkedStages open = worked_stages(givens_of(e.given), Mistake::NoMask);
  const PartGrade no_mask = grade_part(logits, row_answer(open, PartKind::LogitsRow, logits.row));
  EXPECT_FALSE(no_mask.correct);
  EXPECT_EQ(no_mask.diagnosis, Mistake::NoMask);
  // A null where the key is seen is not the mask's slip but a wrong number.
  AnswerValue hole = logits.expected;
  hole.values[0] = std::nullopt;
  ASSERT_FALSE(e.given.options.mask.is_blocked(logits.row, 0));
  EXPECT_EQ(grade_part(logits, hole).diagnosis, Mistake::Arithmetic);
  // null is read only in a logits row.
  const ExercisePart& weights = part_of(e, PartKind::WeightsRow);
  nlohmann::json row = nlohmann::json::array();
  for (long long j = 0; j < weights.shape[0]; ++j) row.push_back(nullptr);
  EXPECT_THROW(parse_part_answer(row, weights, e, "answer.json"), InputError);
}

TEST(ExerciseGrade, ArgmaxAcceptsEveryTiedKey) {
  // The worked example's own Q and K: row 0 weighs keys 0 and 2 the same (0.4011 each).
  const Scenario preset = load_preset("three-tokens");
  ExerciseDraft d(ExerciseRequest{"three-tokens", preset, 1});
  d.set_given(givens_of(preset).Q, givens_of(preset).K, givens_of(preset).V, exercise_options(true, 1));
  const ExercisePart& p = d.row_part(PartKind::ArgmaxKey, 0, 0, "which key");
  EXPECT_EQ(p.tied_keys, (std::vector<long long>{0, 2}));
  EXPECT_EQ(p.expected, AnswerValue::number(0));
  EXPECT_TRUE(right(p, AnswerValue::number(0)));
  EXPECT_TRUE(right(p, AnswerValue::number(2)));
  EXPECT_FALSE(right(p, AnswerValue::number(1)));
  EXPECT_FALSE(d.clear_argmax(0)) << "a page asking for the key draws again on a tie";
}

TEST(ExerciseGrade, MistakesThatGiveTheSameNumbersAreNamedInTheDocumentedOrder) {
  ExercisePart p = number_part(1, 2);
  // Listed out of order on purpose: the grader reads kMistakeOrder, not the list.
  p.mistakes = {mistake_number(Mistake::Transposed, 2), mistake_number(Mistake::WrongAxis, 2),
                mistake_number(Mistake::NoScaling, 2), mistake_number(Mistake::NoMask, 3)};
  EXPECT_EQ(grade_part(p, AnswerValue::number(2)).diagnosis, Mistake::NoScaling);
  EXPECT_EQ(grade_part(p, AnswerValue::number(3)).diagnosis, Mistake::NoMask);
  EXPECT_EQ(grade_part(p, AnswerValue::number(4)).diagnosis, Mistake::Arithmetic);
  EXPECT_FALSE(grade_part(p, AnswerValue::number(1)).diagnosis.has_value());
  // The order is the contract's list.
  std::vector<std::string> names;
  for (const Mistake m : kMistakeOrder) names.emplace_back(mistake_name(m));
  EXPECT_EQ(names, (std::vector<std::string>{"no_scaling", "divided_by_dk", "no_temperature", "no_mask",
                                             "mask_after_softmax", "wrong_axis", "transposed"}));
}

TEST(ExerciseGrade, BlockedCellsCompareAsASet) {
  const Exercise e = make_exercise("mask-family", 2);
  const ExercisePart& p = part_of(e, PartKind::Blocked);
  nlohmann::json reversed = nlohmann::json::array();
  for (size_t k = p.expected.values.size(); k >= 2; k -= 2) {
    reversed.push_back({std::llround(*p.expected.values[k - 2]), std::llround(*p.expected.values[k - 1])});
  }
  reversed.push_back(reversed[0]);  // a cell twice is still that cell
  EXPECT_TRUE(right(p, parse_part_answer(reversed, p, e, "answer.json")));
  EXPECT_EQ(grade_part(p, AnswerValue::cells({})).diagnosis, Mistake::NoMask);
}

TEST(ExerciseAnswers, MalformedAnswersNameThePart) {
  const Exercise e = make_exercise("three-tokens", 7);
  ASSERT_EQ(e.parts.size(), 3u);
  const auto refused = [&](const std::string& text, const std::string& says) {
    try {
      parse_answers(text, e, "answer.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find(says), std::string::npos) << err.what();
    }
  };
  refused(R"({"parts": {"a": [0.1, 0.2, 0.7], "b": [1, 2]}})", "part c is missing");
  refused(R"({"parts": {"a": [0.1, 0.2], "b": [1, 2], "c": 0}})", "part a: expected a list of 3 numbers");
  refused(R"({"parts": {"a": [0.1, "0.2", 0.7], "b": [1, 2], "c": 0}})", "part a[1]: expected a number");
  refused(R"({"parts": {"a": [0.1, NaN, 0.7], "b": [1, 2], "c": 0}})", "part a[1]: expected a finite number, got NaN");
  refused(R"({"parts": {"a": [0.1, 0.2, 0.7], "b": [1, -Infinity], "c": 0}})", "part b[1]: expected a finite number");
  refused(R"({"parts": {"a": [0.1, 0.2, 0.7], "b": [1, 2], "c": 3}})", "part c: expected a key");
  refused(R"({"parts": {"a": [0.1, 0.2, 0.7], "b": [1, 2], "c": 0.5}})", "part c: expected a key");
  refused(R"({"parts": {"a": [0.1, 0.2, 0.7], "b": [1, 2], "c": 0, "z": 1}})", "there is no part 'z'");
  refused(R"({"answers": {}})", "an answer is an object");
  // A NaN inside a string stays text.
  refused(R"({"parts": {"a": [0.1, "NaNa", 0.7], "b": [1, 2], "c": 0}})", "got the text 'NaNa'");
  EXPECT_EQ(parse_answers(R"({"parts": {"a": [0.1, 0.2, 0.7], "b": [1, 2], "c": 2}})", e, "answer.json").size(), 3u);
}

TEST(ExerciseLessons, EveryLessonHasAnExerciseOfTwoPartsOrMore) {
  for (const std::string& lesson : lessons()) {
    const Exercise e = make_exercise(lesson, 1);
    EXPECT_GE(e.parts.size(), 2u) << lesson;
    EXPECT_EQ(e.lesson, lesson);
    const Eigen::Index n = e.given.Q.rows(), m = e.given.K.rows();
    for (size_t k = 0; k < e.parts.size(); ++k) {
      const ExercisePart& p = e.parts[k];
      EXPECT_EQ(p.id, std::string(1, static_cast<char>('a' + k))) << lesson;
      EXPECT_FALSE(p.prompt.empty()) << lesson;
      EXPECT_FALSE(p.working.empty()) << lesson << " part " << p.id;
      const bool row_kind = p.kind == PartKind::ScoresRow || p.kind == PartKind::LogitsRow || p.kind == PartKind::WeightsRow ||
                            p.kind == PartKind::OutputRow || p.kind == PartKind::ArgmaxKey;
      EXPECT_EQ(row_kind, p.row >= 0 && p.row < n) << lesson << " part " << p.id;
      if (p.kind == PartKind::OutputRow) {
        EXPECT_EQ(p.shape, std::vector<long long>{e.given.V.cols()});
      } else if (row_kind && p.kind != PartKind::ArgmaxKey) {
        EXPECT_EQ(p.shape, std::vector<long long>{m});
      }
      // The expected answer is right, by the grader.
      EXPECT_TRUE(grade_part(p, p.expected).correct) << lesson << " part " << p.id;
      for (const MistakeAnswer& c : p.mistakes) {
        EXPECT_FALSE(grade_part(p, c.value).correct) << lesson << " part " << p.id << " " << mistake_name(c.mistake);
      }
    }
  }
}

TEST(ExerciseLessons, TheSameSeedGivesTheSameExerciseAndSeedsDiffer) {
  for (const std::string& lesson : lessons()) {
    EXPECT_EQ(exercise_to_json(make_exercise(lesson, 11)), exercise_to_json(make_exercise(lesson, 11))) << lesson;
    std::set<std::string> drawn;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) drawn.insert(exercise_to_json(make_exercise(lesson, seed))["given"].dump());
    EXPECT_GE(drawn.size(), 4u) << lesson << ": six seeds draw at least four different givens";
  }
  EXPECT_NE(exercise_to_json(make_exercise("three-tokens", 5))["given"], exercise_to_json(make_exercise("geometry", 5))["given"])
      << "the lesson's name is mixed into the seed";
}

TEST(ExerciseLessons, AnUnknownLessonIsNamed) {
  try {
    make_exercise("no-such-lesson", 1);
    ADD_FAILURE();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'no-such-lesson'"), std::string::npos) << e.what();
  }
}

TEST(ExerciseMath, TheExercisesArithmeticIsTheEnginesWithinFloatBounds) {
  // The grader's numbers are worked in double from the givens as written; the engine's float32
  // result of the same given stays within the bounds two conforming computations may differ by.
  for (const std::string& lesson : lessons()) {
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const Exercise e = make_exercise(lesson, seed);
      const Problem p = e.given.problem();
      const Result r = make_cpu_backend()->compute(p);
      const WorkedStages st = worked_stages(givens_of(e.given), std::nullopt);
      const test::AttentionBounds b = test::attention_bounds(p, r);
      test::expect_within(st.scores.cast<float>(), r.scores, b.scores, lesson + " scores");
      test::expect_within(st.weights.cast<float>(), r.weights, b.weights, lesson + " weights");
      test::expect_within(st.output.cast<float>(), r.output, b.output, lesson + " output");
    }
  }
}

TEST(ExerciseJson, HasTheContractsFields) {
  const nlohmann::ordered_json j = exercise_to_json(make_exercise("causal-six", 3));
  for (const char* key : {"lesson", "seed", "title", "given", "parts"}) EXPECT_TRUE(j.contains(key)) << key;
  for (const char* key : {"Q", "K", "V", "scale", "temperature", "mask", "extra"}) EXPECT_TRUE(j["given"].contains(key)) << key;
  EXPECT_FALSE(j["given"].contains("lesson"));
  for (const auto& p : j["parts"]) {
    for (const char* key : {"id", "kind", "prompt", "row", "shape", "decimals"}) EXPECT_TRUE(p.contains(key)) << key;
    EXPECT_FALSE(p.contains("expected")) << "the exercise does not give its answers away";
  }
  EXPECT_EQ(j["parts"][0]["kind"], "blocked");
  EXPECT_EQ(j["parts"][0]["shape"], nlohmann::ordered_json::parse("[null, 2]"));
  EXPECT_TRUE(j["parts"][0]["row"].is_null());
  // given is a scenario: it reads back as one.
  const Scenario again = parse_scenario(j["given"].dump(), "given.json");
  EXPECT_EQ(again.options.mask.kind, MaskKind::Causal);
}

}  // namespace
}  // namespace attnlab
