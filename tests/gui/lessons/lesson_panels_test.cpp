// The lessons in the real GUI code on an ImGui context with no window: every built-in lesson opens
// from the Lessons menu's action and draws its special view, and the classroom walk-through steps
// forward and back with the keys a presenter uses.
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/attention_sinks.hpp"
#include "engine/lessons/online_softmax.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/lessons/worked_example.hpp"
#include "engine/model/model_report.hpp"
#include "gui/lessons/knock_out_page.hpp"
#include "gui/lessons/lesson_numbers.hpp"
#include "gui/lessons/look_at_band.hpp"
#include "gui/lessons/multi_head_page.hpp"
#include "gui/lessons/online_softmax_page.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"
#include "headless_imgui.hpp"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {
namespace {

class LessonPanels : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override { start(ImVec2(1280, 720), TestFonts::Default, default_scenario()); }
  void TearDown() override { stop(); }
};

TEST_F(LessonPanels, EveryLessonOpensOnItsView) {
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    apply(state, services, LoadPreset{p.name});
    ASSERT_TRUE(state.error.empty()) << state.error;
    EXPECT_EQ(state.doc.scenario.title, p.title);
    for (int k = 0; k < 3; ++k) frame();
    EXPECT_TRUE(state.results.has_result);
    EXPECT_TRUE(state.error.empty()) << state.error;
    // Lessons with a view of their own open it.
    const std::string_view v = lesson_view(state.doc.scenario.lesson);
    if (v != kPlainView && v != kWorkedExampleView) {
      EXPECT_TRUE(window_open(state.view, "Lesson view")) << "the Lesson view did not open";
    }
    window_open(state.view, "Lesson view") = false;
  }
}

// The band's parts: every sentence of every item once, in order, none split; a part holds several
// sentences only while they fit the lines, and a sentence too long for them stands alone.
TEST(LookAtParts, PackSentencesInOrderWithinTheLines) {
  const auto lines_of = [](const std::string& s) { return static_cast<int>((s.size() + 39) / 40); };  // 40 characters a line
  const std::vector<std::string> items = {
      "Short one. It has 0.91 in it, and e.g. no split inside a number.",
      "A long sentence that runs on and on and on and on and on and on and on and on and on and on and on and on and on "
      "and on and on and on. Then a short one.",
      "One."};
  const std::vector<std::string> parts = look_at_parts(items, 2, lines_of);
  std::string joined;
  for (const std::string& p : parts) {
    EXPECT_FALSE(p.empty());
    const bool one_sentence = p.find(". ") == std::string::npos;
    EXPECT_TRUE(lines_of(p) <= 2 || one_sentence) << p;
    joined += (joined.empty() ? "" : " ") + p;
  }
  std::string all;
  for (const std::string& i : items) all += (all.empty() ? "" : " ") + i;
  EXPECT_EQ(joined, all);
  // An item never shares a part with the next, and "0.91" stays whole.
  ASSERT_GE(parts.size(), 4u);
  EXPECT_EQ(parts.back(), "One.");
  EXPECT_NE(parts[0].find("0.91"), std::string::npos);
}

// On a projector the Lesson view keeps the lesson's "look at" text in sight under its page: L turns
// to the next part, Shift+L back, and each lesson starts at its first.
TEST_F(LessonPanels, PresenterModeShowsTheLookAtTextUnderThePage) {
  state.view.presenter = true;
  for (const char* name : {"attention-sinks", "kv-cache", "multi-head"}) {
    SCOPED_TRACE(name);
    apply(state, services, LoadPreset{name});
    window_open(state.view, "Lesson view") = true;
    for (int k = 0; k < 3; ++k) frame();
    ASSERT_FALSE(state.lesson.text.look_at.empty());
    EXPECT_EQ(state.lesson.band_part, 0);
    press(GLFW_KEY_L);
    EXPECT_EQ(state.lesson.band_part, 1);
    press(GLFW_KEY_L, false, true);
    EXPECT_EQ(state.lesson.band_part, 0);
    press(GLFW_KEY_L, false, true);
    EXPECT_GT(state.lesson.band_part, 0) << "Shift+L from the first part goes round to the last";
  }
  state.view.presenter = false;
  apply(state, services, LoadPreset{"attention-sinks"});
  for (int k = 0; k < 3; ++k) frame();
  const int before = state.lesson.band_part;
  press(GLFW_KEY_L);
  EXPECT_EQ(state.lesson.band_part, before) << "normal mode has no band: the text is in the Lesson tab";
}

TEST_F(LessonPanels, PresenterModeDrawsEveryView) {
  state.view.presenter = true;
  for (const PresetInfo& p : list_presets()) {
    apply(state, services, LoadPreset{p.name});
    window_open(state.view, "Lesson view") = true;
    frame();
    frame();
    EXPECT_TRUE(state.error.empty()) << p.name << ": " << state.error;
  }
}

// The attention-sinks page draws the sink head's map and the three continuations from numbers the
// lesson computed live from its model, in presenter mode too.
TEST_F(LessonPanels, AttentionSinksPageDrawsItsModelsNumbers) {
  for (const bool presenter : {false, true}) {
    state.view.presenter = presenter;
    apply(state, services, LoadPreset{"attention-sinks"});
    window_open(state.view, "Lesson view") = true;
    for (int k = 0; k < 3; ++k) frame();
    ASSERT_TRUE(state.error.empty()) << state.error;
    std::string error;
    const AttentionSinksNumbers* n = lesson_numbers<AttentionSinksNumbers>(state.lesson, view_context(state, services), error);
    ASSERT_NE(n, nullptr) << error;
    EXPECT_EQ(n->sink_weights.rows(), static_cast<Eigen::Index>(n->ids.size()));
    EXPECT_EQ(n->full.tokens.size(), n->ids.size() - n->prompt.size());
    EXPECT_EQ(n->with_sinks.tokens.size(), n->full.tokens.size());
    EXPECT_EQ(n->without_sinks.tokens.size(), n->full.tokens.size());
  }
}

TEST_F(LessonPanels, WalkThroughStepsForwardAndBack) {
  apply(state, services, LoadPreset{"causal-six"});
  frame();
  apply_commands(state, services, walk_start(state.lesson.walk));
  frame();
  frame();
  ASSERT_TRUE(state.lesson.walk.active);
  EXPECT_EQ(state.lesson.walk.step, 0);
  press(GLFW_KEY_SPACE);
  EXPECT_EQ(state.lesson.walk.step, 1);
  press(GLFW_KEY_RIGHT);
  EXPECT_EQ(state.lesson.walk.step, 2);
  press(GLFW_KEY_PAGE_DOWN);  // a presenter clicker
  EXPECT_EQ(state.lesson.walk.step, 3);
  press(GLFW_KEY_LEFT);
  EXPECT_EQ(state.lesson.walk.step, 2);
  for (int k = 0; k < 10; ++k) press(GLFW_KEY_SPACE);
  EXPECT_EQ(state.lesson.walk.step, kWalkSteps - 1);  // stops at the last step
  for (int k = 0; k < 10; ++k) press(GLFW_KEY_LEFT);
  EXPECT_EQ(state.lesson.walk.step, 0);
  press(GLFW_KEY_ESCAPE);
  EXPECT_FALSE(state.lesson.walk.active);
  // Keys do nothing to the walk-through when it is off.
  press(GLFW_KEY_SPACE);
  EXPECT_EQ(state.lesson.walk.step, 0);
}

// The online-softmax view steps tile by tile with the walk-through's keys and buttons' keys, stops
// at both ends, and follows an edit of the scenario: moving row 4's largest score into the last
// tile makes that tile rescale the row.
TEST_F(LessonPanels, OnlineSoftmaxViewStepsTileByTile) {
  apply(state, services, LoadPreset{"online-softmax"});
  frame();
  frame();
  ASSERT_TRUE(window_open(state.view, "Lesson view"));
  ASSERT_FALSE(state.lesson.walk.active);
  std::string error;
  const auto online = [&] { return lesson_numbers<OnlineSoftmaxNumbers>(state.lesson, view_context(state, services), error); };
  const auto tile = [&] { return page_ui<OnlineSoftmaxUi>(state.lesson)->step; };
  const OnlineSoftmaxNumbers* model = online();
  ASSERT_TRUE(model) << error;
  ASSERT_EQ(model->lesson.steps.size(), 3u);
  EXPECT_EQ(tile(), 0);
  press(GLFW_KEY_SPACE);
  EXPECT_EQ(tile(), 1);
  press(GLFW_KEY_RIGHT);
  EXPECT_EQ(tile(), 2);
  press(GLFW_KEY_PAGE_DOWN);
  EXPECT_EQ(tile(), 2) << "stops at the last tile";
  press(GLFW_KEY_LEFT);
  EXPECT_EQ(tile(), 1);
  press(GLFW_KEY_PAGE_UP);
  press(GLFW_KEY_LEFT);
  EXPECT_EQ(tile(), 0) << "stops at the first tile";
  EXPECT_FALSE(state.lesson.walk.active) << "the tile keys are not the walk-through's";

  EXPECT_FALSE(online()->lesson.steps[2].rows[3].max_raised());
  apply(state, edits::set_cell(Which::K, 9, 0, -3.0f));
  apply(state, services, EndMerge{});
  frame();
  frame();
  const OnlineSoftmaxNumbers* edited = online();
  ASSERT_TRUE(edited) << error;
  EXPECT_TRUE(edited->lesson.steps[2].rows[3].max_raised());
  // The view's dense output is the document's own result.
  EXPECT_EQ(edited->lesson.dense_output, state.results.result.output);

  // Another normalizer: the view says why in place, and the app keeps going.
  apply(state, edits::set_normalizer(Normalizer::Sparsemax));
  frame();
  frame();
  EXPECT_EQ(online(), nullptr);
  EXPECT_NE(error.find("sparsemax"), std::string::npos);
  EXPECT_TRUE(state.error.empty()) << state.error;
}

TEST_F(LessonPanels, EachStepHighlightsWhatChanged) {
  apply(state, services, LoadPreset{"causal-six"});
  frame();
  const Result& r = state.results.result;
  const Glyphs g;
  // Scores: every cell is new. ÷√d_k: every non-zero score changes. Mask: exactly the upper triangle.
  EXPECT_EQ(walk_frame(state.doc.scenario, r, 1, g).changed_count, 36);
  EXPECT_EQ(walk_frame(state.doc.scenario, r, 2, g).formula, "S ÷ √4 = S ÷ 2");
  const WalkFrame mask = walk_frame(state.doc.scenario, r, 3, g);
  EXPECT_EQ(mask.changed_count, 15);
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j) EXPECT_EQ(mask.changed(i, j), j > i ? 1 : 0);
  const WalkFrame soft = walk_frame(state.doc.scenario, r, 4, g);
  EXPECT_EQ(soft.now.name, "weights");
  EXPECT_EQ(soft.now.values, r.weights);
  const WalkFrame out = walk_frame(state.doc.scenario, r, 5, g);
  EXPECT_EQ(out.now.values, r.output);
  ASSERT_EQ(out.before.size(), 2u);
  EXPECT_EQ(out.before[1].name, "V");
  // Without a mask the mask step changes nothing.
  apply(state, edits::set_mask_kind(MaskKind::None));
  frame();
  EXPECT_EQ(walk_frame(state.doc.scenario, state.results.result, 3, g).changed_count, 0);
}

// The lesson's text in the Lesson tab: numbers follow an edit, a quiet line says the numbers were
// changed, and its Reset lesson (clicked as a user would) puts them back, undoably.
TEST_F(LessonPanels, EditedLessonShowsTheNoticeAndResetRestoresIt) {
  apply(state, services, LoadPreset{"three-tokens"});
  frame();
  frame();
  const Scenario original = state.doc.scenario;
  EXPECT_FALSE(state.lesson.text.edited);
  EXPECT_EQ(state.lesson.origin.preset, "three-tokens");
  ASSERT_EQ(state.lesson.text.look_at.size(), 3u);
  EXPECT_NE(state.lesson.text.look_at[0].plain().find("(0.4011, 0.1978, 0.4011)"), std::string::npos)
      << state.lesson.text.look_at[0].plain();
  EXPECT_EQ(state.lesson.text.course_notes.size(), 3u);
  EXPECT_EQ(state.lesson.reset_x1, 0.0f) << "no Reset offered for the lesson's own numbers";

  apply(state, edits::set_cell(Which::Q, 0, 0, 3.0f));
  apply(state, services, EndMerge{});
  frame();
  frame();
  EXPECT_TRUE(state.lesson.text.edited);
  EXPECT_TRUE(state.lesson.text.course_notes.empty()) << "the course text's numbers no longer apply";
  const std::string row1 = state.lesson.text.look_at[0].plain();
  EXPECT_EQ(row1.find("0.4011, 0.1978"), std::string::npos) << "a stale number: " << row1;
  // The text quotes the numbers now on screen.
  char weight[32];
  std::snprintf(weight, sizeof weight, "%.4f", state.results.result.weights(0, 0));
  EXPECT_NE(row1.find(weight), std::string::npos) << row1 << " lacks " << weight;
  ASSERT_GT(state.lesson.reset_x1, state.lesson.reset_x0) << "Reset lesson was not drawn";

  // Click Reset lesson.
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2((state.lesson.reset_x0 + state.lesson.reset_x1) / 2, (state.lesson.reset_y0 + state.lesson.reset_y1) / 2);
  frame();
  io.MouseDown[0] = true;
  frame();
  io.MouseDown[0] = false;
  frame();
  frame();
  EXPECT_TRUE(same_numbers(state.doc.scenario, original)) << "Reset lesson did not restore the lesson's numbers";
  EXPECT_FALSE(state.lesson.text.edited);
  EXPECT_EQ(state.lesson.text.course_notes.size(), 3u);
  EXPECT_EQ(undo_name(state.history), "reset lesson");
  apply(state, services, Undo{});
  frame();
  frame();
  EXPECT_TRUE(state.lesson.text.edited) << "undo brings the edit back";
  EXPECT_EQ(state.doc.scenario.Q(0, 0), 3.0f);
}

// A resize leaves references past the end of the smaller matrices: they show a dash, never a crash
// or a raw {reference}.
TEST_F(LessonPanels, LessonTextSurvivesAResize) {
  apply(state, services, LoadPreset{"three-tokens"});
  frame();
  ASSERT_TRUE(apply(state, services, Resize{Dim::N, 1}));
  frame();
  frame();
  EXPECT_TRUE(state.lesson.text.edited);
  std::string all;
  for (const auto& line : state.lesson.text.look_at) all += line.plain();
  EXPECT_NE(all.find(kMissingNumber), std::string::npos) << all;
  EXPECT_EQ(all.find('{'), std::string::npos) << all;
}

// Help's lesson index shows a card for the chosen lesson.
TEST_F(LessonPanels, HelpShowsEachLessonsReferenceCard) {
  window_open(state.view, "Help") = true;
  for (const PresetInfo& p : list_presets()) {
    state.lesson.card.lesson = p.name;
    frame();
    EXPECT_EQ(state.lesson.card.filled_for, p.name);
    EXPECT_EQ(state.lesson.card.title, p.title);
    EXPECT_FALSE(state.lesson.card.text.source.empty()) << p.name;
    EXPECT_FALSE(state.lesson.card.text.keys.empty()) << p.name;
  }
}

TEST_F(LessonPanels, MultiHeadShareSwitchMakesHeadsIdentical) {
  apply(state, services, LoadPreset{"multi-head"});
  frame();
  frame();
  MultiHeadUi& lesson = *page_ui<MultiHeadUi>(state.lesson);
  EXPECT_EQ(lesson.heads, 4);
  EXPECT_FALSE(lesson.share);
  ASSERT_EQ(lesson.weights.heads(), 4);
  EXPECT_NE(lesson.weights.W_Q[0], lesson.weights.W_Q[1]);
  lesson.share = true;
  frame();
  EXPECT_EQ(lesson.weights.W_Q[0], lesson.weights.W_Q[3]);
  const auto r = multi_head_attention(state.doc.scenario.Q, lesson.weights, state.doc.scenario.options, *make_cpu_backend());
  EXPECT_TRUE(r.heads_identical);
  EXPECT_LE(r.max_abs_difference, 1e-5);
}

// The knock-out page: a click on a head in the grid knocks it out, and the accuracy with it out is
// measured once, the engine's numbers for that head; a second click puts it back.
TEST_F(LessonPanels, KnockOutClickKnocksAHeadOut) {
  const auto builtins = model::builtin_models();
  if (std::none_of(builtins.begin(), builtins.end(), [](const model::BuiltinModel& b) { return b.name == kKnockOutModel; })) {
    GTEST_SKIP() << "no built-in induction model in this build";
  }
  state.view.presenter = true;
  apply(state, services, LoadPreset{"knock-out"});
  window_open(state.view, "Lesson view") = true;
  for (int k = 0; k < 3; ++k) frame();
  KnockOutUi* ui = page_ui<KnockOutUi>(state.lesson);
  ASSERT_NE(ui, nullptr);
  const ImGuiWindow* w = ImGui::FindWindowByName("Lesson view");
  ASSERT_NE(w, nullptr);
  // Down the window's left edge, below its title bar, until a click lands on a head.
  ImVec2 at(w->Pos.x + 40, w->Pos.y + w->TitleBarHeight() + 4);
  for (; at.y < w->Pos.y + w->Size.y && ui->out.empty(); at.y += 10) click(at);
  ASSERT_EQ(ui->out.size(), 1u) << "no head in the Lesson view's grid took the click";
  ASSERT_TRUE(ui->run.has_value()) << ui->error;
  EXPECT_EQ(ui->run->heads, ui->out);
  const auto m = model::open_model(std::string(kKnockOutModel));
  const KnockOutRun engine = knock_out(*m, knock_out_probe(*m), ui->out, kKnockOutSequences, kKnockOutSeed);
  EXPECT_EQ(ui->run->accuracy.right, engine.accuracy.right);
  EXPECT_EQ(ui->run->accuracy.counted, engine.accuracy.counted);
  EXPECT_TRUE(state.error.empty()) << state.error;
  EXPECT_LE(w->ScrollMax.y, 2.0f) << "the bar of the student's choice fits a projector without scrolling";
  for (const ImGuiWindow* page : w->DC.ChildWindows) EXPECT_LE(page->ScrollMax.y, 2.0f) << page->Name << ": its page scrolls";
  at.y -= 10;
  click(at);
  EXPECT_TRUE(ui->out.empty());
  EXPECT_FALSE(ui->run.has_value());
}

TEST_F(LessonPanels, LessonsMenuOrderAndNextLesson) {
  apply(state, services, LoadPreset{"three-tokens"});
  frame();
  EXPECT_EQ(state.doc.scenario.title, load_preset("three-tokens").title);
  apply(state, services, LoadPreset{list_presets()[1].name});
  frame();
  EXPECT_EQ(state.doc.scenario.title, load_preset("three-tokens-basis").title);
  // Opening a lesson is one undoable action.
  apply(state, services, Undo{});
  frame();
  EXPECT_EQ(state.doc.scenario.title, load_preset("three-tokens").title);
}

}  // namespace
}  // namespace attnlab::gui
