// The Exercise tab (issue 70; app/gui/lessons/exercise_tab.hpp): answers typed as a student types
// them are read as the command line reads an answer file, every lesson's expected answers typed back
// are right, a mistaken one is diagnosed by name; in the real app with no window, the tab opens on
// the lesson shown at the seed the session recorded, a check records what was solved (the session
// keeps it), and a click on a key of K answers "which key".
#include "engine/lessons/presets.hpp"
#include "gui/lessons/exercise_tab.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/state/share_link.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <string>

namespace attnlab::gui {
namespace {

const ExercisePart& part_of(const Exercise& e, PartKind kind) {
  for (const ExercisePart& p : e.parts) {
    if (p.kind == kind) return p;
  }
  throw std::logic_error("no such part");
}

TEST(ExerciseTyping, ReadsWhatStudentsWrite) {
  const Exercise e = make_exercise("causal-six", 4);
  const ExercisePart& logits = part_of(e, PartKind::LogitsRow);
  const ExercisePart& blocked = part_of(e, PartKind::Blocked);
  const long long m = e.given.K.rows();
  std::string row;
  for (long long j = 0; j < m; ++j) row += j <= logits.row ? "0.5, " : "−∞, ";
  const AnswerValue a = read_typed_answer(row, logits, e);
  ASSERT_EQ(a.values.size(), static_cast<size_t>(m));
  EXPECT_EQ(a.values[0], 0.5);
  EXPECT_FALSE(a.values[static_cast<size_t>(m - 1)].has_value()) << "−∞ is a blocked logit";
  EXPECT_EQ(read_typed_answer("(0.5 0.5 -inf -inf -inf -inf)", logits, e).values.size(), static_cast<size_t>(m));
  const AnswerValue cells = read_typed_answer("0 1; 0 2 (1,2)", blocked, e);
  EXPECT_EQ(cells, AnswerValue::cells({{0, 1}, {0, 2}, {1, 2}}));
  // Malformed: one sentence naming the part, as the command line says it.
  for (const char* bad : {"0.5, zero", "0.5", "0 1; 0", "nan, 1, 1, 1, 1, 1"}) {
    const ExercisePart& p = std::string(bad).find(';') != std::string::npos ? blocked : logits;
    try {
      read_typed_answer(bad, p, e);
      ADD_FAILURE() << bad << " was read";
    } catch (const InputError& err) {
      EXPECT_NE(std::string(err.what()).find("part " + p.id), std::string::npos) << err.what();
    }
  }
}

TEST(ExerciseTyping, EveryLessonsExpectedAnswersTypedBackAreRight) {
  for (const PresetInfo& lesson : list_presets()) {
    for (const std::uint64_t seed : {1u, 9u}) {
      ExerciseUi ui;
      open_exercise(ui, lesson.name, seed);
      ASSERT_TRUE(ui.exercise) << lesson.name << ": " << ui.error;
      for (size_t k = 0; k < ui.parts.size(); ++k) ui.parts[k].text = typed_answer(ui.exercise->parts[k].expected, ui.exercise->parts[k].kind);
      const std::vector<std::string> right = check_exercise(ui);
      EXPECT_EQ(right.size(), ui.parts.size()) << lesson.name << " seed " << seed;
      for (const ExercisePartUi& p : ui.parts) EXPECT_TRUE(p.refused.empty()) << lesson.name << ": " << p.refused;
    }
  }
}

TEST(ExerciseTyping, AMistakeIsNamedWithTheWorking) {
  ExerciseUi ui;
  open_exercise(ui, "three-tokens", 3);
  ASSERT_TRUE(ui.exercise);
  const ExercisePart& weights = part_of(*ui.exercise, PartKind::WeightsRow);
  const auto mistake = std::find_if(weights.mistakes.begin(), weights.mistakes.end(),
                                    [](const MistakeAnswer& m) { return m.mistake == Mistake::NoScaling; });
  ASSERT_NE(mistake, weights.mistakes.end());
  const size_t k = static_cast<size_t>(&weights - ui.exercise->parts.data());
  ui.parts[k].text = typed_answer(mistake->value, PartKind::WeightsRow);
  check_exercise(ui);
  ASSERT_TRUE(ui.parts[k].grade);
  EXPECT_FALSE(ui.parts[k].grade->correct);
  EXPECT_EQ(ui.parts[k].grade->diagnosis, Mistake::NoScaling);
  EXPECT_FALSE(ui.parts[k].grade->verdict.empty());
  EXPECT_FALSE(ui.parts[k].grade->working.empty());
  // A field left empty is not graded.
  for (size_t p = 0; p < ui.parts.size(); ++p) {
    if (p != k) {
      EXPECT_FALSE(ui.parts[p].grade);
    }
  }
}

class ExerciseTab : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override { start(ImVec2(1280, 800), TestFonts::Default, load_preset("three-tokens")); }
  void TearDown() override { stop(); }
  void open_tab() {
    state.lesson.exercise.shown = true;
    window_open(state.view, "Lesson view") = true;
    for (int k = 0; k < 4; ++k) frame();
  }
};

TEST_F(ExerciseTab, OpensOnTheLessonAndRecordsWhatWasSolved) {
  state.exercises["three-tokens"] = ExerciseRecord{7, {"b"}};  // as a session restores it
  open_tab();
  const ExerciseUi& ui = state.lesson.exercise;
  ASSERT_TRUE(ui.exercise) << ui.error;
  EXPECT_EQ(ui.lesson, "three-tokens");
  EXPECT_EQ(ui.seed, 7u) << "the seed the session recorded";
  // The right answers, as an answer file fills them (ATTNLAB_GUI_EXERCISE_ANSWERS does this).
  nlohmann::ordered_json answers;
  for (const ExercisePart& p : ui.exercise->parts) answers["parts"][p.id] = answer_to_json(p.expected, p.kind);
  state.lesson.exercise.pending_answers = answers.dump();
  frame();
  frame();
  for (const ExercisePartUi& p : ui.parts) EXPECT_TRUE(p.grade && p.grade->correct);
  EXPECT_EQ(state.exercises["three-tokens"].seed, 7u);
  EXPECT_EQ(state.exercises["three-tokens"].solved, (std::vector<std::string>{"a", "b", "c"}));
  // New numbers: the next seed, fields empty; a check there starts the record again.
  open_exercise(state.lesson.exercise, "three-tokens", 8);
  apply_commands(state, services, {RecordExercise{"three-tokens", 8, {"c"}}});
  EXPECT_EQ(state.exercises["three-tokens"], (ExerciseRecord{8, {"c"}}));
}

TEST_F(ExerciseTab, AClickOnAKeyOfKAnswersWhichKey) {
  open_tab();
  const ExerciseUi& ui = state.lesson.exercise;
  ASSERT_TRUE(ui.exercise);
  const auto argmax = std::find_if(ui.exercise->parts.begin(), ui.exercise->parts.end(),
                                   [](const ExercisePart& p) { return p.kind == PartKind::ArgmaxKey; });
  ASSERT_NE(argmax, ui.exercise->parts.end());
  const std::vector<DrawnRect>& maps = state.pipeline.lesson_maps_drawn;
  ASSERT_GE(maps.size(), 2u) << "Q and K drawn";
  const DrawnRect k = maps[1];
  ASSERT_TRUE(k.drawn);
  ASSERT_EQ(k.rows, ui.exercise->given.K.rows());
  const float row_h = (k.y1 - k.y0) / static_cast<float>(k.rows);
  click(ImVec2((k.x0 + k.x1) / 2, k.y0 + row_h * 2.5f));
  EXPECT_EQ(ui.parts[static_cast<size_t>(argmax - ui.exercise->parts.begin())].text, "2");
}

// A browser link's &exercise=SEED (docs/WEB.md, "Links"): the lesson's exercise at that seed, over the
// seed the session recorded, the same as `attnlab exercise LESSON --seed SEED`; Share link then
// carries that seed, and none once the lesson is back.
TEST_F(ExerciseTab, ALinksExerciseOpensAtItsSeedAndShareLinkCarriesIt) {
  state.exercises["three-tokens"] = ExerciseRecord{7, {}};
  ASSERT_EQ(show_linked_exercise(state.lesson.exercise, state.doc.scenario, 12), "");
  window_open(state.view, "Lesson view") = true;
  for (int k = 0; k < 4; ++k) frame();
  const ExerciseUi& ui = state.lesson.exercise;
  ASSERT_TRUE(ui.exercise) << ui.error;
  EXPECT_EQ(ui.seed, 12u);
  EXPECT_EQ(exercise_to_json(*ui.exercise).dump(), exercise_to_json(make_exercise("three-tokens", 12)).dump());
  EXPECT_EQ(shown_exercise_seed(ui, state.doc.scenario), std::optional<std::uint64_t>(12));
  const LinkFragment link = read_link_fragment(share_fragment(scenario_to_json(state.doc.scenario), shown_exercise_seed(ui, state.doc.scenario)));
  EXPECT_EQ(link.exercise_seed, std::optional<std::uint64_t>(12));
  EXPECT_EQ(link.scenario_json, scenario_to_json(state.doc.scenario));
  // A seed above the range of an int (the CLI's seeds are 64 bits): the Seed field shows it whole,
  // so Open opens this exercise again, not another one.
  ASSERT_EQ(show_linked_exercise(state.lesson.exercise, state.doc.scenario, 4000000000u), "");
  for (int k = 0; k < 2; ++k) frame();
  EXPECT_EQ(ui.seed, 4000000000u);
  EXPECT_EQ(ui.seed_field, 4000000000u);
  EXPECT_EQ(shown_exercise_seed(ui, state.doc.scenario), std::optional<std::uint64_t>(4000000000u));
  state.lesson.exercise.shown = false;  // Back to the lesson
  EXPECT_FALSE(shown_exercise_seed(ui, state.doc.scenario));
  // Another document than the exercise's lesson: no seed to share.
  state.lesson.exercise.shown = true;
  Scenario other = load_preset("causal-six");
  EXPECT_FALSE(shown_exercise_seed(ui, other));
}

TEST_F(ExerciseTab, ALinksExerciseOnAScenarioThatIsNoLessonIsSaid) {
  Scenario s = load_preset("three-tokens");
  s.title = "My own numbers";
  ExerciseUi ui;
  const std::string why = show_linked_exercise(ui, s, 3);
  EXPECT_NE(why.find("exercise=3"), std::string::npos) << why;
  EXPECT_NE(why.find("'My own numbers' is not one of the built-in lessons"), std::string::npos) << why;
  EXPECT_FALSE(ui.shown);
  EXPECT_FALSE(ui.open_seed);
}

TEST_F(ExerciseTab, AScenarioThatIsNoLessonHasNoExercise) {
  Scenario s = load_preset("three-tokens");
  s.title = "My own numbers";
  reset_document(state, s, "");
  open_tab();
  EXPECT_TRUE(state.lesson.exercise.lesson.empty());
  EXPECT_FALSE(state.lesson.exercise.exercise);
}

}  // namespace
}  // namespace attnlab::gui
