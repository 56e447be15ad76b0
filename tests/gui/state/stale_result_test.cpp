// A result shown after the document has moved on (issue 38). An edit made during a frame (the inputs
// column is drawn before the Explain tab, the menus before everything) leaves the rest of that frame
// with the last result and a newer document, as a streamed document does until its run finishes.
// Whatever explains, labels or exports the result must use the document it was computed from: the
// Explain panel keeps that result's arithmetic word for word, the walk-through its inputs, a click
// on a cell of it changes nothing in the document, and nothing reads past the end of Q, K or V
// (scripts/test runs this on the ASan build, where Eigen's bounds checks are on too).
#include "engine/lessons/presets.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/lessons/walkthrough_view.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <functional>
#include <string>

namespace attnlab::gui {
namespace {

class StaleResult : public HeadlessAppTest {
protected:
  // What `draw` puts on screen as text, in a window of its own at a fixed place, as ImGui's log
  // captures it (every Text and TextUnformatted; heatmap cells are drawn, not logged).
  std::string captured(const std::function<void()>& draw) {
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(1200, 760));
    ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoSavedSettings);
    ImGui::LogToBuffer();
    draw();
    std::string text = ImGui::GetCurrentContext()->LogBuffer.c_str();
    ImGui::LogFinish();
    ImGui::End();
    return text;
  }
  // One frame with no recompute in it: `edit` first (as a panel drawn early in the frame makes it),
  // then `draw`.
  std::string draw_after(const std::function<void()>& edit, const std::function<void()>& draw) {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    edit();
    std::string text = captured(draw);
    ImGui::Render();
    return text;
  }
  std::string draw_now(const std::function<void()>& draw) {
    return draw_after([] {}, draw);
  }
  // A panel of the registry, drawn as the app draws it.
  std::function<void()> panel(Panel p) {
    return [this, p] { draw_panel(state, services, p); };
  }
};

// The case: the last query row's cell selected, n shrunk, the frame drawn before the
// recompute. The panel read Q's row 3 of a 2-row Q.
TEST_F(StaleResult, ExplainKeepsTheShownCellWhenNShrinksBeforeTheRecompute) {
  ASSERT_EQ(state.results.result.n, 3);
  state.pipeline.selected = CellRef{Stage::Weights, 2, 2};
  const std::string before = draw_now(panel(Panel::Explain));
  ASSERT_NE(before.find("how much t3 attends to t3"), std::string::npos) << before;
  const std::string during = draw_after([&] { ASSERT_TRUE(apply(state, services, Resize{Dim::N, 2})); }, panel(Panel::Explain));
  EXPECT_EQ(state.doc.scenario.Q.rows(), 2);
  EXPECT_TRUE(state.results.needs_compute);
  EXPECT_EQ(during, before) << "the Explain panel must explain the result it shows, not the edited document";
  frame();  // the recompute: the selected cell is outside the new result
  EXPECT_EQ(state.results.result.n, 2);
  EXPECT_NE(draw_now(panel(Panel::Explain)), before);
}

// Every size that explain_cell reads (n, m, d_k, d_v), shrunk under a selected corner cell of every
// stage it explains.
TEST_F(StaleResult, ExplainKeepsTheShownCellWhicheverSizeShrinks) {
  apply(state, edits::set_self_attention(false));  // m apart from n
  frame();
  for (const Dim dim : {Dim::N, Dim::M, Dim::Dk, Dim::Dv}) {
    for (const Stage stage : {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output}) {
      const Result& r = state.results.result;
      const int cols = static_cast<int>(stage == Stage::Output ? r.d_v : r.m);
      state.pipeline.selected = CellRef{stage, static_cast<int>(r.n) - 1, cols - 1};
      const std::string before = draw_now(panel(Panel::Explain));
      const std::string during = draw_after([&] { ASSERT_TRUE(apply(state, services, Resize{dim, 1})); }, panel(Panel::Explain));
      EXPECT_EQ(during, before) << dim_name(dim) << " = 1 under " << stage_name(stage);
      apply(state, services, Undo{});
      frame();
    }
  }
}

// The walk-through shows the step's inputs beside what they produced: the result's own Q and K.
TEST_F(StaleResult, WalkThroughShowsTheShownResultsInputs) {
  apply_commands(state, services, walk_start(state.lesson.walk));
  state.lesson.walk.step = 1;  // the scores: Q and K drawn before them
  // The view as the Lesson view window draws it, its maps handed on as the shell hands them.
  const auto walkthrough = [this] {
    Commands out;
    draw_walkthrough_view(MapCanvas{view_context(state, services), state.pipeline.selected, out}, state.lesson.walk);
    apply_commands(state, services, std::move(out));
  };
  draw_now(walkthrough);
  ASSERT_EQ(state.pipeline.lesson_maps_drawn.size(), 2u);
  EXPECT_EQ(state.pipeline.lesson_maps_drawn[0].rows, 3);
  draw_after([&] { ASSERT_TRUE(apply(state, services, Resize{Dim::N, 2})); }, walkthrough);
  ASSERT_EQ(state.pipeline.lesson_maps_drawn.size(), 2u);
  EXPECT_EQ(state.pipeline.lesson_maps_drawn[0].rows, 3) << "Q beside the scores must be the Q they came from";
  EXPECT_EQ(state.pipeline.lesson_maps_drawn[1].rows, 3);
}

// A shift-click on a cell of a result the document has moved on from selects it and blocks
// nothing: the row and column it names belong to the old sizes.
TEST_F(StaleResult, ShiftClickOnAStaleResultChangesNothing) {
  draw_now(panel(Panel::Pipeline));  // where the cells are, in the probe window
  const DrawnRect d = state.pipeline.drawn[static_cast<size_t>(Stage::Weights)];
  ASSERT_TRUE(d.drawn);
  const ImVec2 corner(d.x0 + (d.x1 - d.x0) * 5 / 6, d.y0 + (d.y1 - d.y0) * 5 / 6);  // cell (2, 2) of 3 × 3
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = corner;
  draw_now(panel(Panel::Pipeline));
  io.MouseDown[0] = true;
  draw_now(panel(Panel::Pipeline));
  io.MouseDown[0] = false;
  io.KeyShift = true;
  draw_after([&] { ASSERT_TRUE(apply(state, services, Resize{Dim::N, 2})); }, panel(Panel::Pipeline));
  io.KeyShift = false;
  EXPECT_EQ(state.pipeline.selected.row, 2);
  EXPECT_EQ(state.pipeline.selected.col, 2);
  EXPECT_EQ(state.doc.scenario.options.mask.kind, MaskKind::None);
  EXPECT_TRUE(state.error.empty()) << state.error;
  // With the result current again, the same shift-click blocks its cell.
  frame();
  draw_now(panel(Panel::Pipeline));
  const DrawnRect e = state.pipeline.drawn[static_cast<size_t>(Stage::Weights)];
  io.MousePos = ImVec2(e.x0 + (e.x1 - e.x0) * 3 / 4, e.y0 + (e.y1 - e.y0) * 3 / 4);  // cell (1, 1) of 2 × 2
  draw_now(panel(Panel::Pipeline));
  io.MouseDown[0] = true;
  draw_now(panel(Panel::Pipeline));
  io.MouseDown[0] = false;
  io.KeyShift = true;
  draw_now(panel(Panel::Pipeline));
  io.KeyShift = false;
  ASSERT_EQ(state.doc.scenario.options.mask.kind, MaskKind::Custom);
  EXPECT_TRUE(state.doc.scenario.options.mask.blocked(1, 1));
}

// The banner over the pipeline names the head the pipeline shows: after a lift (or an undo of one)
// in the middle of a frame, the last result's, until the recompute.
TEST_F(StaleResult, TheLiftedHeadsBannerLabelsTheShownResult) {
  Scenario head = load_preset("causal-six");
  head.title = "GPT-2 · layer 1 · head 2";
  state.model.lifted.push_back({head.title, {1, 2}, {}});
  draw_after([&] { apply(state, services, LoadScenario{head, "", "open " + head.title + " in the lab"}); }, panel(Panel::Pipeline));
  EXPECT_EQ(state.doc.scenario.title, head.title);
  EXPECT_TRUE(model_banner(state.model, shown_scenario(state.results, state.doc)).empty()) << "the pipeline still shows the document before the lift";
  frame();
  EXPECT_EQ(model_banner(state.model, shown_scenario(state.results, state.doc)), head.title);
  apply(state, services, Undo{});
  EXPECT_EQ(model_banner(state.model, shown_scenario(state.results, state.doc)), head.title) << "the pipeline still shows the lifted head";
  frame();
  EXPECT_TRUE(model_banner(state.model, shown_scenario(state.results, state.doc)).empty());
  // The Training window's lifted heads, the same.
  state.training.lifted_titles.push_back(head.title);
  apply(state, services, Redo{});
  EXPECT_TRUE(training_banner(state.training, shown_scenario(state.results, state.doc)).empty());
  frame();
  EXPECT_EQ(training_banner(state.training, shown_scenario(state.results, state.doc)), head.title);
}

// Every panel of every lesson, drawn in the frame of an edit that moves the document away from the
// result under a selected corner cell: nothing may read outside the result or the document (the
// ASan build aborts where one does), and nothing may throw.
TEST_F(StaleResult, EveryPanelOfEveryLessonDrawsBeforeTheRecompute) {
  // A size to 1 (or, where it is 1 already, to 2: a result smaller than its document); with RoPE on
  // d_k stays even (2, or 4 where it is 2 already).
  const auto other_size = [this](Dim dim) {
    return [this, dim](AppState& s) {
      const int now = dim_value(s.doc, dim), step = dim == Dim::Dk && s.doc.scenario.options.rope ? 2 : 1;
      apply(s, services, Resize{dim, now > step ? step : 2 * step});
    };
  };
  const std::vector<std::pair<const char*, std::function<void(AppState&)>>> edits = {
      {"n", other_size(Dim::N)},
      {"d_k", other_size(Dim::Dk)},
      {"d_v", other_size(Dim::Dv)},
      {"another lesson", [this](AppState& s) { apply(s, services, LoadPreset{"causal-six"}); }},
  };
  for (const PresetInfo& preset : list_presets()) {
    for (const auto& [name, edit] : edits) {
      reset_document(state, load_preset(preset.name), "");
      frame();
      ASSERT_TRUE(state.results.has_result) << preset.name;
      const Result& r = state.results.result;
      state.pipeline.selected = CellRef{Stage::Weights, static_cast<int>(r.n) - 1, static_cast<int>(r.m) - 1};
      const std::uint64_t before = state.doc_version;
      // One frame, as the app draws it: the edit, then every panel, each in a window of its own.
      ImGui::GetIO().DeltaTime = 1.0f / 60;
      ImGui::NewFrame();
      edit(state);
      for (const PanelInfo& p : panel_list()) {
        ImGui::SetNextWindowSize(ImVec2(1200, 760));
        ImGui::Begin(p.name, nullptr, ImGuiWindowFlags_NoSavedSettings);
        draw_panel(state, services, p.panel);
        ImGui::End();
      }
      ImGui::Render();
      EXPECT_NE(state.doc_version, before) << preset.name << ", " << name << ": the edit was refused: " << state.error;
      EXPECT_EQ(shown_scenario(state.results, state.doc).Q.rows(), state.results.result.n) << preset.name << ", " << name;
    }
  }
}

}  // namespace
}  // namespace attnlab::gui
