// Hostile sizes and numbers in the GUI (issue 8): the real app frame on an ImGui context with no
// window, driven through the real cell-edit path (ctrl+click a cell, type, Enter) and the actions
// the controls call. Nothing may crash, no stage may hold NaN, every ±∞ on screen comes with a
// sentence saying why, and every refused input names its cell or field and keeps the last good
// state. scripts/test runs this under ASan + UBSan too.
#include "engine/lessons/presets.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"
#include "headless_imgui.hpp"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::gui {
namespace {

class Hostile : public HeadlessAppTest {
protected:
  // Tall enough that the Q, K and V grids all fit in the left column without scrolling.
  Hostile() : HeadlessAppTest(ImVec2(1280, 1400)) {}

  void after_frame() override {
    check_invariants();
    if (!state.results.needs_compute && state.results.computed_doc) {
      const Scenario &shown = state.results.computed_doc->scenario, &doc = state.doc.scenario;
      EXPECT_TRUE(doc.Q.rows() == shown.Q.rows() && doc.Q.cols() == shown.Q.cols() && doc.K.rows() == shown.K.rows())
          << "the document and the result disagree";
      if (doc.Q.size() <= 4096) {
        EXPECT_EQ(doc.Q, shown.Q) << "the document and the result disagree";
      }
    }
  }

  // What must hold after every frame, whatever was typed (the n × m scans once per new result).
  std::uint64_t checked_version = ~std::uint64_t{0};
  void check_invariants() {
    ASSERT_TRUE(state.results.has_result);
    if (state.results.result_version == checked_version) return;
    checked_version = state.results.result_version;
    const Result& r = state.results.result;
    const Scenario& sc = state.doc.scenario;
    for (const Matrix* M : {&sc.Q, &sc.K, &sc.V}) EXPECT_TRUE(M->allFinite()) << "the document holds a non-finite input";
    bool infinite = false;
    for (const Matrix* M : {&r.scores, &r.logits, &r.weights, &r.output, &r.saturation}) {
      EXPECT_FALSE(M->hasNaN()) << "a stage shows NaN";
      infinite |= !M->allFinite();
    }
    EXPECT_TRUE(r.weights.allFinite() && r.saturation.allFinite());
    // Logits of blocked cells are −∞ by design (hatched); any other ∞ needs its sentence.
    bool unexplained = false;
    for (Eigen::Index i = 0; i < r.n && r.dense; ++i) {
      for (Eigen::Index j = 0; j < r.m; ++j) {
        const bool blocked = state.results.blocked.size() && state.results.blocked(i, j);
        if ((!blocked && !std::isfinite(r.logits(i, j))) || !std::isfinite(r.scores(i, j))) unexplained = true;
      }
    }
    unexplained |= !r.output.allFinite();
    if (unexplained) {
      EXPECT_FALSE(state.results.overflow.empty()) << "a stage shows infinity with no sentence saying why";
    }
    (void)infinite;
    for (const RowDiagnostics& d : r.rows) {
      EXPECT_FALSE(std::isnan(d.entropy) || std::isnan(d.effective_keys) || std::isnan(d.jacobian_norm));
    }
  }

  // The grid child window of Q, K or V (the inputs panel's BeginChild("grid")), top to bottom.
  ImGuiWindow* grid_window(Which w) {
    std::vector<ImGuiWindow*> grids;
    for (ImGuiWindow* win : GImGui->Windows) {
      if (win->Active && std::string(win->Name).find("/grid_") != std::string::npos) grids.push_back(win);
    }
    std::sort(grids.begin(), grids.end(), [](ImGuiWindow* a, ImGuiWindow* b) { return a->Pos.y < b->Pos.y; });
    const size_t k = static_cast<size_t>(w);
    return k < grids.size() ? grids[k] : nullptr;
  }

  // The centre of cell (i, j) of the grid, as inputs_panel.cpp lays it out (label column, then
  // cells every cell_w + spacing; one frame-height row each; child windows have no padding).
  ImVec2 cell_center(Which w, int i, int j) {
    ImGuiWindow* win = grid_window(w);
    EXPECT_NE(win, nullptr) << "no grid window for " << which_name(w);
    if (!win) return ImVec2(-1, -1);
    const float fs = ImGui::GetFontSize();
    const float label_w = fs * 4.5f, cell_w = fs * 3.6f, spacing = ImGui::GetStyle().ItemSpacing.x;
    const float row_h = ImGui::GetFrameHeightWithSpacing();
    return ImVec2(win->Pos.x - win->Scroll.x + label_w + static_cast<float>(j) * (cell_w + spacing) + cell_w * 0.5f,
                  win->Pos.y - win->Scroll.y + static_cast<float>(i) * row_h + ImGui::GetFrameHeight() * 0.5f);
  }

  // Types `text` into a cell the way a user does: ctrl+click opens the cell's text field (all of
  // its text selected), the characters arrive, Enter closes it.
  void type_into_cell(Which w, int i, int j, const std::string& text) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = cell_center(w, i, j);
    frame();
    io.KeyCtrl = true;
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    io.KeyCtrl = false;
    frame();
    ASSERT_NE(GImGui->ActiveId, 0u) << which_name(w) << "[" << i << "][" << j << "]: the cell's text field did not open";
    for (char c : text) io.AddInputCharacter(static_cast<unsigned>(c));
    frame();
    io.KeysDown[GLFW_KEY_ENTER] = true;
    frame();
    io.KeysDown[GLFW_KEY_ENTER] = false;
    frame();
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    frame();
  }

  const Matrix& input(Which w) const {
    const Scenario& s = state.doc.scenario;
    return w == Which::Q ? s.Q : w == Which::K ? s.K : s.V;
  }
  bool any_note(const std::string& words) const {
    for (const std::string& s : state.results.overflow.sentences) {
      if (s.find(words) != std::string::npos) return true;
    }
    return false;
  }
};

TEST_F(Hostile, TypingIntoACellGoesThroughTheTextField) {
  type_into_cell(Which::V, 1, 0, "7.5");
  EXPECT_FLOAT_EQ(state.doc.scenario.V(1, 0), 7.5f);
  EXPECT_TRUE(state.error.empty()) << state.error;
}

TEST_F(Hostile, PlusOneE38AndMinusOneE38InEveryCell) {
  for (const char* text : {"1e38", "-1e38"}) {
    for (Which w : {Which::Q, Which::K, Which::V}) {
      for (int i = 0; i < input(w).rows(); ++i) {
        for (int j = 0; j < input(w).cols(); ++j) {
          SCOPED_TRACE(std::string(text) + " into " + which_name(w) + "[" + std::to_string(i) + "][" + std::to_string(j) + "]");
          const float before = input(w)(i, j);
          type_into_cell(w, i, j, text);
          const float now = input(w)(i, j);
          if (state.error.empty()) {
            EXPECT_EQ(now, std::stof(text));
          } else {
            // Refused: the scores became NaN (+∞ + −∞ in one dot product). The sentence names
            // the score cell and the cell keeps its old value.
            EXPECT_NE(state.error.find("scores["), std::string::npos) << state.error;
            EXPECT_NE(state.error.find("not applied"), std::string::npos) << state.error;
            EXPECT_EQ(now, before);
          }
        }
      }
    }
  }
}

TEST_F(Hostile, AllPositiveHugeScoresShareTheRowAndSayWhy) {
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) {
      type_into_cell(Which::Q, i, j, "1e38");
      type_into_cell(Which::K, i, j, "1e38");
    }
  }
  ASSERT_TRUE(state.error.empty()) << state.error;
  const Result& r = state.results.result;
  EXPECT_TRUE(std::isinf(r.scores(0, 0)));
  EXPECT_TRUE(any_note("scores overflow float32")) << "no sentence for +inf scores";
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(r.weights(1, j), 1.0 / 3, 1e-6);
  EXPECT_EQ(state.results.overflow.rows[0], RowOverflow::ScoresPosInf);
}

TEST_F(Hostile, ARowWhoseVisibleScoresAreAllMinusInfinityIsNotMasked) {
  // q_1 = (1e38, 1e38) against keys of −1e38: every score of row 1 overflows to −∞.
  type_into_cell(Which::Q, 0, 0, "1e38");
  type_into_cell(Which::Q, 0, 1, "1e38");
  apply(state, edits::set_self_attention(false));
  Scenario s = state.doc.scenario;
  s.K = Matrix{{-1e38f, -1e38f}, {-1e38f, -1e38f}, {-1e38f, -1e38f}};
  apply(state, services, LoadScenario{s, "", "negative keys"});
  frame();
  ASSERT_TRUE(state.error.empty()) << state.error;
  const Result& r = state.results.result;
  EXPECT_EQ(r.scores(0, 1), -INFINITY);
  EXPECT_FALSE(r.rows[0].fully_masked) << "an overflowed row is not a masked row";
  EXPECT_EQ(state.results.overflow.rows[0], RowOverflow::ScoresAllNegInf);
  EXPECT_TRUE(any_note("not masked")) << (state.results.overflow.empty() ? "" : state.results.overflow.sentences[0]);
  EXPECT_NEAR(r.weights.row(0).sum(), 1.0, 1e-6);
}

TEST_F(Hostile, TextThatIsNotAPlainNumberIsRefusedNamingTheCell) {
  const Matrix q0 = state.doc.scenario.Q;
  type_into_cell(Which::Q, 0, 0, "+-1");  // ImGui 1.86 alone would subtract 1
  EXPECT_EQ(state.doc.scenario.Q, q0);
  EXPECT_NE(state.error.find("Q[0][0]"), std::string::npos) << state.error;
  state.error.clear();
  type_into_cell(Which::K, 2, 1, "1e39");  // beyond float32
  EXPECT_EQ(state.doc.scenario.K(2, 1), 1.0f);
  EXPECT_NE(state.error.find("K[2][1]"), std::string::npos) << state.error;
  EXPECT_NE(state.error.find("float32"), std::string::npos) << state.error;
  state.error.clear();
  type_into_cell(Which::V, 0, 0, "*1e38");  // 10 · 1e38 overflows: arithmetic is refused too
  EXPECT_FLOAT_EQ(state.doc.scenario.V(0, 0), 10.0f);
  EXPECT_NE(state.error.find("V[0][0]"), std::string::npos) << state.error;
}

TEST_F(Hostile, TinyTemperatureWithoutScalingExplainsInfiniteLogits) {
  type_into_cell(Which::Q, 0, 0, "1e19");
  type_into_cell(Which::K, 0, 0, "1e19");  // score 1e38: finite; ÷ 0.05 is not (in float32)
  apply(state, edits::set_scale(false));
  apply(state, edits::set_temperature(0.05));
  frame();
  ASSERT_TRUE(state.error.empty()) << state.error;
  const Result& r = state.results.result;
  EXPECT_DOUBLE_EQ(r.effective_temperature, 0.05);
  EXPECT_TRUE(std::isfinite(r.scores(0, 0)));
  EXPECT_TRUE(std::isinf(r.logits(0, 0)));
  EXPECT_TRUE(any_note("logits overflow float32")) << "no sentence for the infinite logits";
  for (Eigen::Index i = 0; i < r.n; ++i) EXPECT_NEAR(r.weights.row(i).sum(), 1.0, 1e-5);
  // And with ordinary numbers a temperature of 0.05 unscaled simply sharpens.
  apply(state, services, LoadPreset{"three-tokens"});
  apply(state, edits::set_scale(false));
  apply(state, edits::set_temperature(0.0001));  // clamped to 0.05
  frame();
  EXPECT_DOUBLE_EQ(state.doc.scenario.options.temperature, 0.05);
  EXPECT_TRUE(state.results.overflow.empty());
  EXPECT_GT(state.results.result.weights(2, 2), 0.99f);
}

TEST_F(Hostile, DkOf65536) {
  apply(state, edits::fill(FillTarget::All, edits::Fill::Random, 1.0f, 3));
  ASSERT_TRUE(apply(state, services, Resize{Dim::Dk, 65536}));
  frame();
  ASSERT_TRUE(state.error.empty()) << state.error;
  EXPECT_EQ(state.results.result.d_k, 65536);
  EXPECT_NEAR(state.results.result.scale_divisor, 256.0, 1e-9);
  apply(state, edits::fill(FillTarget::All, edits::Fill::Random, 1.0f, 3));
  apply(state, edits::set_scale(false));  // unscaled at d_k = 65536: saturated rows, nothing broken
  frame();
  int saturated = 0;
  for (const RowDiagnostics& d : state.results.result.rows) saturated += d.saturated;
  EXPECT_GT(saturated, 0);
  // Beyond the limit: refused, naming d_k, sizes kept.
  EXPECT_FALSE(apply(state, services, Resize{Dim::Dk, 65537}));
  EXPECT_NE(state.error.find("d_k"), std::string::npos) << state.error;
  EXPECT_EQ(state.doc.scenario.Q.cols(), 65536);
  frame();
}

// Every mask kind with every parameter, on n = m = 1, 2, 3 and 7: the parameter is either
// accepted (blocked rows then have zero weights and are flagged) or refused naming the mask.
TEST_F(Hostile, EveryMaskWithEverySize) {
  const MaskKind kinds[] = {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::Prefix, MaskKind::Window,
                            MaskKind::Custom};
  for (int n : {1, 2, 3, 7}) {
    ASSERT_TRUE(apply(state, services, Resize{Dim::N, n}));
    apply(state, edits::fill(FillTarget::All, edits::Fill::Random, 1.0f, n));
    for (MaskKind kind : kinds) {
      apply(state, edits::set_mask_kind(kind));
      frame();
      for (int param : {-1, 0, 1, n - 1, n, n + 1, 1000, 2147483647}) {
        SCOPED_TRACE("n = " + std::to_string(n) + ", " + std::string(mask_kind_name(kind)) + " " + std::to_string(param));
        state.error.clear();
        const Mask before = state.doc.scenario.options.mask;
        if (kind != MaskKind::None && kind != MaskKind::Causal && kind != MaskKind::Custom) {
          apply(state, edits::set_mask_param(param));
          apply(state, services, EndMerge{});
        }
        frame();
        if (!state.error.empty()) {
          EXPECT_NE(state.error.find("mask"), std::string::npos) << state.error;
          EXPECT_EQ(state.doc.scenario.options.mask, before);
        }
        const Result& r = state.results.result;
        ASSERT_EQ(r.n, n);
        for (Eigen::Index i = 0; i < r.n; ++i) {
          const bool all_blocked = (state.results.blocked.row(i).array() != 0).all();
          EXPECT_EQ(r.rows[static_cast<size_t>(i)].fully_masked, all_blocked) << "row " << i;
          EXPECT_NEAR(r.weights.row(i).sum(), all_blocked ? 0.0 : 1.0, 1e-5) << "row " << i;
        }
      }
    }
  }
}

TEST_F(Hostile, CustomMaskBlockingWholeRows) {
  apply(state, edits::set_mask_kind(MaskKind::Custom));
  for (int j = 0; j < 3; ++j) apply(state, edits::toggle_blocked(1, j));  // row 2: every key blocked
  for (int i : {0, 2}) apply(state, edits::toggle_blocked(i, 2));         // and the rest of a column
  frame();
  const Result& r = state.results.result;
  EXPECT_TRUE(r.rows[1].fully_masked);
  EXPECT_EQ(r.weights.row(1).sum(), 0.0f);
  EXPECT_EQ(r.output.row(1).sum(), 0.0f);
  EXPECT_FALSE(r.rows[0].fully_masked);
  EXPECT_TRUE(state.results.overflow.empty()) << "masked cells are not overflows";
  // Everything blocked: every row flagged, nothing NaN.
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j)
      if (!state.doc.scenario.options.mask.blocked(i, j)) apply(state, edits::toggle_blocked(i, j));
  frame();
  for (const RowDiagnostics& d : state.results.result.rows) EXPECT_TRUE(d.fully_masked);
}

TEST_F(Hostile, OneByOne) {
  ASSERT_TRUE(apply(state, services, Resize{Dim::N, 1}));
  ASSERT_TRUE(apply(state, services, Resize{Dim::Dk, 1}));
  ASSERT_TRUE(apply(state, services, Resize{Dim::Dv, 1}));
  frame();
  EXPECT_EQ(state.results.result.n, 1);
  EXPECT_EQ(state.results.result.m, 1);
  EXPECT_EQ(state.results.result.weights(0, 0), 1.0f);
  type_into_cell(Which::Q, 0, 0, "-1e38");
  type_into_cell(Which::K, 0, 0, "1e38");
  EXPECT_EQ(state.results.result.scores(0, 0), -INFINITY);
  EXPECT_EQ(state.results.result.weights(0, 0), 1.0f) << "the only key takes the whole row";
  EXPECT_EQ(state.results.overflow.rows[0], RowOverflow::ScoresAllNegInf);
  EXPECT_FALSE(apply(state, services, Resize{Dim::N, 0}));
  EXPECT_NE(state.error.find("n must be at least 1"), std::string::npos) << state.error;
  frame();
}

// n = m = 4096 (256 MiB of dense stages, under the ask-first limit): a parameter past n is refused
// naming the mask, every key blocked (padding 0) flags every row, a window as wide as the sequence
// is causal, and a 4096 × 4096 custom grid. Each step recomputes 16.7 million cells, so few steps.
TEST_F(Hostile, N4096) {
  apply(state, edits::fill(FillTarget::All, edits::Fill::Random, 1.0f, 11));
  ASSERT_TRUE(apply(state, services, Resize{Dim::N, 4096})) << "256 MiB of stages should not need asking";
  frame();
  ASSERT_TRUE(state.error.empty()) << state.error;
  ASSERT_EQ(state.results.result.n, 4096);
  ASSERT_EQ(state.results.result.m, 4096);
  apply(state, edits::set_mask_kind(MaskKind::Padding));
  apply(state, edits::set_mask_param(5000));
  EXPECT_NE(state.error.find("padding length 5000 is larger than the number of keys (4096)"), std::string::npos)
      << state.error;
  apply(state, edits::set_mask_param(0));
  apply(state, services, EndMerge{});
  frame();
  for (const RowDiagnostics& d : state.results.result.rows) ASSERT_TRUE(d.fully_masked);
  apply(state, edits::set_mask_kind(MaskKind::Window));
  apply(state, edits::set_mask_param(4096));
  apply(state, services, EndMerge{});
  frame();
  EXPECT_FLOAT_EQ(state.results.result.weights(0, 0), 1.0f);
  EXPECT_EQ(state.results.result.weights(0, 1), 0.0f);
  apply(state, edits::toggle_blocked(4095, 4095));
  frame();
  EXPECT_EQ(state.doc.scenario.options.mask.kind, MaskKind::Custom);
  EXPECT_EQ(state.results.result.weights(4095, 4095), 0.0f);
  EXPECT_TRUE(state.error.empty()) << state.error;
}

}  // namespace
}  // namespace attnlab::gui
