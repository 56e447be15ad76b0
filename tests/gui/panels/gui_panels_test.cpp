// Panel tests: the real app frame (menus, panels, shortcuts, actions) on an ImGui context with no
// window and no GL, driven by key presses, mouse clicks and actions; checks state and results.

// Index of this file:
// [SECTION] Harness: the app on a window-less ImGui context
// [SECTION] Keys, clicks and edits, with undo
// [SECTION] Explain a cell
// [SECTION] Sizes, tokens and fills
// [SECTION] Files and the session
// [SECTION] Lessons and layout
// [SECTION] Documents too large for dense stages

#include "engine/io/matrix_io.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/io/scenario.hpp"
#include "engine/attention/explain.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/compute.hpp"
#include "gui/state/compute_job.hpp"
#include "gui/persistence/session_store.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"
#include "headless_imgui.hpp"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include <unistd.h>

namespace attnlab::gui {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// [SECTION] Harness
// ---------------------------------------------------------------------------------------------

class Harness : public HeadlessAppTest {
protected:
  ImVec2 cell_center(Stage s, int i, int j) const {
    const DrawnRect& d = state.pipeline.drawn[static_cast<size_t>(s)];
    EXPECT_TRUE(d.drawn) << stage_name(s);
    return ImVec2(d.x0 + (d.x1 - d.x0) * (static_cast<float>(j) + 0.5f) / static_cast<float>(d.cols),
                  d.y0 + (d.y1 - d.y0) * (static_cast<float>(i) + 0.5f) / static_cast<float>(d.rows));
  }
  const Result& result() const { return state.results.result; }
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Keys, clicks and edits
// ---------------------------------------------------------------------------------------------

TEST_F(Harness, DefaultLessonShowsEveryStageWithSeedNumbers) {
  ASSERT_TRUE(state.results.has_result);
  for (Stage s : {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output}) {
    EXPECT_TRUE(state.pipeline.drawn[static_cast<size_t>(s)].drawn) << stage_name(s);
  }
  EXPECT_EQ(result().n, 3);
  // Section 2.3, row 3: exp(0.707), exp(0.707), exp(1.414) normalize to (0.248 0.248 0.503).
  EXPECT_NEAR(result().weights(2, 0), 0.248, 1e-3);
  EXPECT_NEAR(result().weights(2, 2), 0.503, 1e-3);
  EXPECT_NEAR(result().output(1, 0), 3.99, 1e-2);
  EXPECT_TRUE(state.error.empty()) << state.error;
}

TEST_F(Harness, ScalingKeyTogglesAndUndoRedoRestore) {
  press(GLFW_KEY_S);
  EXPECT_FALSE(state.doc.scenario.options.scale);
  EXPECT_DOUBLE_EQ(result().effective_temperature, 1.0);
  // Unscaled, row 3 sharpens to (0.21 0.21 0.58).
  EXPECT_NEAR(result().weights(2, 2), 0.576, 2e-3);
  press(GLFW_KEY_Z, true);
  EXPECT_TRUE(state.doc.scenario.options.scale);
  EXPECT_NEAR(result().weights(2, 2), 0.503, 1e-3);
  press(GLFW_KEY_Z, true, true);
  EXPECT_FALSE(state.doc.scenario.options.scale);
  press(GLFW_KEY_Z, true);
  press(GLFW_KEY_Y, true);
  EXPECT_FALSE(state.doc.scenario.options.scale);
}

TEST_F(Harness, TemperatureKeysAndClamp) {
  press(GLFW_KEY_RIGHT_BRACKET);
  EXPECT_NEAR(state.doc.scenario.options.temperature, 1.25, 1e-9);
  EXPECT_NEAR(result().effective_temperature, std::sqrt(2.0) * 1.25, 1e-6);
  press(GLFW_KEY_0);
  EXPECT_NEAR(state.doc.scenario.options.temperature, 1.0, 1e-12);
  apply(state, edits::set_temperature(1000));
  frame();
  EXPECT_DOUBLE_EQ(state.doc.scenario.options.temperature, 20.0);
  // A high temperature flattens the weights towards uniform.
  EXPECT_NEAR(result().weights(0, 1), 1.0 / 3, 0.02);
  // Two undos: each key press and each slider drag is one entry.
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  frame();
  EXPECT_NEAR(state.doc.scenario.options.temperature, 1.25, 1e-9);
}

TEST_F(Harness, MaskKeyCyclesToCausal) {
  press(GLFW_KEY_M);
  ASSERT_EQ(state.doc.scenario.options.mask.kind, MaskKind::Causal);
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) {
      sum += result().weights(i, j);
      if (j > i) {
        EXPECT_EQ(result().weights(i, j), 0.0f);
        EXPECT_TRUE(std::isinf(result().logits(i, j)));
      }
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  EXPECT_FLOAT_EQ(result().weights(0, 0), 1.0f);
}

TEST_F(Harness, ShiftClickBlocksACellAndUndoUnblocks) {
  click(cell_center(Stage::Weights, 0, 1), true);
  const Mask& mask = state.doc.scenario.options.mask;
  ASSERT_EQ(mask.kind, MaskKind::Custom);
  EXPECT_EQ(mask.blocked(0, 1), 1);
  EXPECT_EQ(result().weights(0, 1), 0.0f);
  EXPECT_NEAR(result().weights(0, 0) + result().weights(0, 2), 1.0, 1e-6);
  EXPECT_EQ(state.pipeline.selected, (CellRef{Stage::Weights, 0, 1}));
  // With a custom mask a plain click toggles too.
  click(cell_center(Stage::Logits, 2, 0));
  EXPECT_EQ(state.doc.scenario.options.mask.blocked(2, 0), 1);
  press(GLFW_KEY_Z, true);
  press(GLFW_KEY_Z, true);
  EXPECT_EQ(state.doc.scenario.options.mask.kind, MaskKind::None);
  EXPECT_NEAR(result().weights(0, 1), 0.198, 1e-3);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Explain a cell
// ---------------------------------------------------------------------------------------------

TEST_F(Harness, HoverFeedsTheExplanation) {
  ImGui::GetIO().MousePos = cell_center(Stage::Weights, 0, 0);
  frame();
  frame();
  ASSERT_EQ(state.pipeline.hovered, (CellRef{Stage::Weights, 0, 0}));
  const Explanation e = explain_cell(state.doc.scenario.problem(), result(), state.pipeline.hovered, query_labels(state.doc.scenario),
                                     key_labels(state.doc.scenario), services.glyphs);
  std::string all = e.heading;
  for (const auto& s : e.steps) all += "\n" + s;
  // Section 2.3's row 1 by hand: (e^0.707, e^0, e^0.707) = (2.028, 1, 2.028), sum 5.056, 0.401.
  EXPECT_NE(all.find("2.028"), std::string::npos) << all;
  EXPECT_NE(all.find("5.056"), std::string::npos) << all;
  EXPECT_NE(all.find("0.401"), std::string::npos) << all;
  EXPECT_NEAR(e.value, 0.401, 1e-3);
}

TEST_F(Harness, OutputExplanationIsTheWeightedSumOfValueRows) {
  const Explanation e = explain_cell(state.doc.scenario.problem(), result(), CellRef{Stage::Output, 1, 0},
                                     query_labels(state.doc.scenario), key_labels(state.doc.scenario), services.glyphs);
  ASSERT_FALSE(e.steps.empty());
  // Output row 2 is (3.98 6.02) (the course text rounds it to 3.99): the book left out 0.401·(5, 5).
  EXPECT_NE(e.steps[0].find("= 3.983"), std::string::npos) << e.steps[0];
  EXPECT_NEAR(e.value, 3.99, 1e-2);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Sizes, tokens and fills
// ---------------------------------------------------------------------------------------------

TEST_F(Harness, ResizeKeepsCellsAddsZerosAndUndoes) {
  const Matrix q0 = state.doc.scenario.Q;
  apply(state, services, Resize{Dim::N, 5});
  frame();
  const Scenario& s = state.doc.scenario;
  ASSERT_EQ(s.Q.rows(), 5);
  EXPECT_EQ(s.K.rows(), 5) << "self-attention keeps K on Q's tokens";
  EXPECT_EQ(s.Q.topRows(3), q0);
  EXPECT_TRUE(s.Q.bottomRows(2).isZero());
  EXPECT_EQ(s.query_tokens.size(), 5u);
  EXPECT_EQ(s.key_tokens, s.query_tokens);
  EXPECT_EQ(result().n, 5);
  apply(state, services, Resize{Dim::Dk, 4});
  frame();
  EXPECT_EQ(result().d_k, 4);
  EXPECT_NEAR(result().scale_divisor, 2.0, 1e-12);
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  frame();
  EXPECT_EQ(state.doc.scenario.Q, q0);
  EXPECT_EQ(result().n, 3);
}

TEST_F(Harness, CrossAttentionHasItsOwnKeyCount) {
  apply(state, edits::set_self_attention(false));
  apply(state, services, Resize{Dim::M, 7});
  frame();
  EXPECT_EQ(result().n, 3);
  EXPECT_EQ(result().m, 7);
  EXPECT_EQ(state.pipeline.drawn[static_cast<size_t>(Stage::Weights)].cols, 7);
}

TEST_F(Harness, HugeSizesAskFirstAndKeepTheDocument) {
  const int n0 = dim_value(state.doc, Dim::N);
  EXPECT_FALSE(apply(state, services, Resize{Dim::N, 20000}));
  EXPECT_TRUE(state.pending_resize.active);
  EXPECT_GT(state.pending_resize.bytes, kConfirmBytes);
  EXPECT_EQ(dim_value(state.doc, Dim::N), n0);
  frame();  // the confirmation popup draws
  state.pending_resize.active = false;
  frame();
  EXPECT_EQ(dim_value(state.doc, Dim::N), n0);
}

TEST_F(Harness, LoadingALessonIsUndoable) {
  apply(state, services, LoadPreset{"causal-six"});
  frame();
  EXPECT_EQ(result().n, 6);
  EXPECT_EQ(state.doc.scenario.options.mask.kind, MaskKind::Causal);
  apply(state, services, Undo{});
  frame();
  EXPECT_EQ(result().n, 3);
  apply(state, services, LoadPreset{"no-such-lesson"});
  EXPECT_FALSE(state.error.empty());
  EXPECT_EQ(result().n, 3);
}

// RoPE in the lab: R toggles it, the lifted settings come back, a shift of every position keeps
// every score, one moved key changes its column, new rows go on counting, and undo puts it back.
TEST_F(Harness, RopeKeyRotatesAndKeepsItsSettings) {
  apply(state, services, LoadPreset{"rope"});
  frame();
  ASSERT_TRUE(state.doc.scenario.options.rope);
  const Matrix rotated = result().rotated_q * result().rotated_k.transpose();
  const double bound = 1e-5 * rotated.cwiseAbs().maxCoeff();
  EXPECT_LE((result().scores - rotated).cwiseAbs().maxCoeff(), bound);
  const Matrix with_rope = result().scores;
  apply(state, edits::set_rope_theta(state.doc, 500));
  apply(state, services, EndMerge{});
  frame();
  press(GLFW_KEY_R);
  EXPECT_FALSE(state.doc.scenario.options.rope);
  const Scenario& sc = state.doc.scenario;
  EXPECT_LE((result().scores - sc.Q * sc.K.transpose()).cwiseAbs().maxCoeff(), bound);
  press(GLFW_KEY_R);
  ASSERT_TRUE(state.doc.scenario.options.rope);
  EXPECT_DOUBLE_EQ(state.doc.scenario.options.rope->theta, 500);
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  frame();
  EXPECT_DOUBLE_EQ(state.doc.scenario.options.rope->theta, 10000);
  apply(state, edits::shift_rope_positions(state.doc, 7));
  frame();
  EXPECT_EQ(state.doc.scenario.options.rope->query_positions.front(), 7);
  EXPECT_LE((result().scores - with_rope).cwiseAbs().maxCoeff(), bound);
  apply(state, edits::set_rope_position(state.doc, Which::K, 2, 40));
  frame();
  EXPECT_GT((result().scores.col(2) - with_rope.col(2)).cwiseAbs().maxCoeff(), 1000 * bound);
  EXPECT_LE((result().scores.col(1) - with_rope.col(1)).cwiseAbs().maxCoeff(), bound);
  ASSERT_TRUE(apply(state, services, Resize{Dim::N, 8}));
  frame();
  EXPECT_EQ(state.doc.scenario.options.rope->query_positions,
            (std::vector<std::int64_t>{7, 8, 9, 10, 11, 12, 13, 14}));
  // The explanation of a weight works the rotation for its two positions.
  state.pipeline.selected = CellRef{Stage::Weights, 3, 2};
  frame();
  const Explanation e = explain_cell(shown_scenario(state.results, state.doc).problem(), result(), state.pipeline.selected,
                                     query_labels(shown_scenario(state.results, state.doc)), key_labels(shown_scenario(state.results, state.doc)), services.glyphs);
  EXPECT_NE(e.steps[0].find("position 10"), std::string::npos) << e.steps[0];
  EXPECT_NE(e.steps[0].find("at 40"), std::string::npos) << e.steps[0];
}

TEST_F(Harness, RopeRefusesAnOddWidthWithASentence) {
  ASSERT_TRUE(apply(state, services, Resize{Dim::Dk, 3}));
  frame();
  press(GLFW_KEY_R);
  EXPECT_FALSE(state.doc.scenario.options.rope);
  EXPECT_NE(state.error.find("odd"), std::string::npos) << state.error;
  ASSERT_TRUE(apply(state, services, Resize{Dim::Dk, 4}));
  press(GLFW_KEY_R);
  ASSERT_TRUE(state.doc.scenario.options.rope);
  // With RoPE on, an odd d_k is refused and the document keeps its width.
  EXPECT_FALSE(apply(state, services, Resize{Dim::Dk, 5}));
  EXPECT_EQ(state.doc.scenario.Q.cols(), 4);
  EXPECT_FALSE(state.error.empty());
}

TEST_F(Harness, BadEditsKeepTheLastGoodState) {
  const Matrix q0 = state.doc.scenario.Q;
  apply(state, edits::set_cell(Which::Q, 0, 0, NAN));
  EXPECT_FALSE(state.error.empty());
  EXPECT_EQ(state.doc.scenario.Q, q0);
  apply(state, edits::set_mask_kind(MaskKind::Padding));
  apply(state, edits::set_mask_param(99));  // more valid keys than keys
  frame();
  EXPECT_NE(state.error.find("padding"), std::string::npos) << state.error;
  EXPECT_LE(state.doc.scenario.options.mask.param, 3);
  EXPECT_FALSE(can_redo(state.history));
}

TEST_F(Harness, CellEditsRecomputeAndMergeWhileScrubbing) {
  const size_t before = state.history.undo.size();
  apply(state, edits::set_cell(Which::V, 0, 0, 11));
  apply(state, edits::set_cell(Which::V, 0, 0, 12));
  apply(state, edits::set_cell(Which::V, 0, 0, 20));
  apply(state, services, EndMerge{});
  frame();
  EXPECT_EQ(state.history.undo.size(), before + 1);
  EXPECT_NEAR(result().output(0, 0), 0.401 * 20 + 0.401 * 5, 1e-2);
  apply(state, services, Undo{});
  frame();
  EXPECT_FLOAT_EQ(state.doc.scenario.V(0, 0), 10.0f);
}

TEST_F(Harness, SentenceBecomesTokens) {
  apply(state, edits::tokens_from_sentence(state.doc, "the cat sat on the mat"));
  frame();
  EXPECT_EQ(result().n, 6);
  EXPECT_EQ(state.doc.scenario.query_tokens[1], "cat");
  EXPECT_EQ(state.doc.scenario.key_tokens[5], "mat");
}

TEST_F(Harness, FillsAreSeededAndShaped) {
  apply(state, edits::fill(FillTarget::All, edits::Fill::Random, 2.0f, 7));
  const Matrix q1 = state.doc.scenario.Q;
  apply(state, edits::fill(FillTarget::All, edits::Fill::Zeros, 1, 0));
  EXPECT_TRUE(state.doc.scenario.V.isZero());
  apply(state, edits::fill(FillTarget::All, edits::Fill::Random, 2.0f, 7));
  EXPECT_EQ(state.doc.scenario.Q, q1);
  apply(state, edits::fill(FillTarget::Q, edits::Fill::Identity, 1, 0));
  EXPECT_FLOAT_EQ(state.doc.scenario.Q(1, 1), 1.0f);
  EXPECT_FLOAT_EQ(state.doc.scenario.Q(2, 0), 0.0f);
  frame();
  EXPECT_TRUE(state.error.empty()) << state.error;
}

TEST_F(Harness, PresenterAndThemeKeysSwitchStyle) {
  press(GLFW_KEY_P);
  EXPECT_TRUE(state.view.presenter);
  EXPECT_EQ(ImGui::GetIO().FontDefault, services.fonts.presenter);
  press(GLFW_KEY_T);
  EXPECT_EQ(state.view.theme, Theme::Light);
  press(GLFW_KEY_F1);
  EXPECT_TRUE(window_open(state.view, "Help"));
  frame();
}

TEST_F(Harness, BigMatricesDrawWithoutGlAndHoverReadsOut) {
  Scenario s = state.doc.scenario;
  std::mt19937 rng(3);
  std::normal_distribution<float> nd;
  s.Q = Matrix(300, 8);
  s.K = Matrix(300, 8);
  s.V = Matrix(300, 4);
  for (Matrix* M : {&s.Q, &s.K, &s.V})
    for (Eigen::Index k = 0; k < M->size(); ++k) M->data()[k] = nd(rng);
  s.query_tokens.clear();
  s.key_tokens.clear();
  apply(state, services, LoadScenario{s, "", "big"});
  frame();
  ASSERT_EQ(result().n, 300);
  frame();  // the layout settles once the pipeline knows its size
  ImGui::GetIO().MousePos = cell_center(Stage::Weights, 150, 20);
  frame();
  frame();
  EXPECT_EQ(state.pipeline.hovered.stage, Stage::Weights);
  EXPECT_NEAR(state.pipeline.hovered.row, 150, 1);
  EXPECT_NEAR(state.pipeline.hovered.col, 20, 1);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Files and the session
// ---------------------------------------------------------------------------------------------

TEST_F(Harness, BrokenFilesKeepTheScenario) {
  const fs::path dir = fs::temp_directory_path() / ("attnlab_gui_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  {
    std::ofstream(dir / "broken.json") << "{\"format\": \"attnlab-scenario\", \"Q\": [[1]]";
  }
  apply(state, services, UseFile{FilePurpose::OpenScenario, (dir / "broken.json").string()});
  EXPECT_NE(state.error.find("broken.json"), std::string::npos) << state.error;
  EXPECT_EQ(state.doc.scenario.Q.rows(), 3);
  // A good one round-trips through save and open, and lands in the recent files.
  state.error.clear();
  apply(state, services, UseFile{FilePurpose::SaveScenario, (dir / "good.json").string()});
  EXPECT_TRUE(state.error.empty()) << state.error;
  apply(state, services, Resize{Dim::N, 4});
  apply(state, services, UseFile{FilePurpose::OpenScenario, (dir / "good.json").string()});
  EXPECT_EQ(state.doc.scenario.Q.rows(), 3);
  ASSERT_FALSE(state.recent_files.empty());
  EXPECT_NE(state.recent_files[0].find("good.json"), std::string::npos);
  // A matrix file sets the sizes that follow from it.
  {
    std::ofstream(dir / "q.csv") << "1,2,3\n4,5,6\n";
  }
  apply(state, services, UseFile{FilePurpose::OpenMatrixQ, (dir / "q.csv").string()});
  frame();
  EXPECT_EQ(result().n, 2);
  EXPECT_EQ(result().d_k, 3);
  fs::remove_all(dir);
}

TEST_F(Harness, SessionRoundTrips) {
  const fs::path dir = fs::temp_directory_path() / ("attnlab_session_test_" + std::to_string(::getpid()));
  apply(state, edits::set_scale(false));
  state.view.theme = Theme::Light;
  state.view.sequential = "magma";
  state.recent_files = {"/tmp/a.json"};
  state.exercises["causal-six"] = ExerciseRecord{4, {"a", "c"}};  // what a student solved (issue 70)
  save_session(SessionData{state.doc, state.scenario_path, state.view, state.recent_files, WindowGeometry{1500, 900}, state.exercises},
               dir);
  const std::optional<SessionData> fresh = read_session(dir);
  ASSERT_TRUE(fresh);
  EXPECT_FALSE(fresh->doc.scenario.options.scale);
  EXPECT_EQ(fresh->doc.scenario.Q, state.doc.scenario.Q);
  EXPECT_EQ(fresh->view.theme, Theme::Light);
  EXPECT_EQ(fresh->view.sequential, "magma");
  EXPECT_EQ(fresh->recent_files, state.recent_files);
  EXPECT_EQ(fresh->exercises, state.exercises);
  EXPECT_EQ(fresh->window.width, 1500);
  // A corrupt session is refused with a sentence, not a crash (the window then starts without it).
  {
    std::ofstream(dir / "session.json") << "{not json";
  }
  EXPECT_THROW(read_session(dir), InputError);
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Lessons and layout
// ---------------------------------------------------------------------------------------------

TEST_F(Harness, EveryLessonOpensAndDraws) {
  for (const PresetInfo& p : list_presets()) {
    apply(state, services, LoadPreset{p.name});
    frame();
    EXPECT_TRUE(state.error.empty()) << p.name << ": " << state.error;
    EXPECT_TRUE(state.pipeline.drawn[static_cast<size_t>(Stage::Weights)].drawn) << p.name;
  }
}


// I folds the inputs column away (View > Inputs column too): the pipeline takes the whole width,
// so a six-token pipeline on a 1280 × 720 projector gets cells big enough for numbers.
TEST_F(Harness, InputsColumnFoldsAwayForBiggerHeatmaps) {
  apply(state, services, LoadPreset{"causal-six"});
  frame();
  frame();
  const DrawnRect before = state.pipeline.drawn[static_cast<size_t>(Stage::Weights)];
  ASSERT_TRUE(before.drawn);
  press(GLFW_KEY_I);
  EXPECT_TRUE(state.view.inputs_hidden);
  frame();
  const DrawnRect after = state.pipeline.drawn[static_cast<size_t>(Stage::Weights)];
  EXPECT_GT(after.x1 - after.x0, (before.x1 - before.x0) * 1.15f);
  press(GLFW_KEY_I);
  EXPECT_FALSE(state.view.inputs_hidden);
}

// Files dropped on the window: a scenario opens, a matrix asks "into Q, K or V?" and then loads,
// a broken file says why in place and keeps the document.
TEST_F(Harness, DroppedFilesOpenScenariosAndMatrices) {
  const fs::path dir = fs::temp_directory_path() / ("attnlab-drop-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  Scenario sc = attnlab::load_preset("causal-six");
  sc.title = "dropped lesson";
  save_scenario(sc, dir / "lesson.json");
  state.dropped_files.push_back((dir / "lesson.json").string());
  frame();
  EXPECT_EQ(state.doc.scenario.title, "dropped lesson");
  EXPECT_EQ(result().n, 6);

  Matrix K = Matrix::Constant(6, 4, 0.5f);
  K(5, 3) = -2.0f;
  std::ofstream(dir / "k.npy", std::ios::binary) << npy_bytes(K);
  state.dropped_files.push_back((dir / "k.npy").string());
  frame();
  ASSERT_EQ(state.inputs.drop_path, (dir / "k.npy").string());  // the "Load matrix" question is open
  frame();
  apply(state, services, UseFile{FilePurpose::OpenMatrixK, state.inputs.drop_path});  // what its K button does
  state.inputs.drop_path.clear();
  frame();
  EXPECT_EQ(state.doc.scenario.K.cols(), 4);
  EXPECT_EQ(state.doc.scenario.K(5, 3), -2.0f);
  EXPECT_EQ(result().d_k, 4);
  EXPECT_TRUE(state.error.empty()) << state.error;

  std::ofstream(dir / "broken.json") << "{\"format\": \"attnlab-scenario\", \"Q\": [[1, 2], [3]]}";
  state.dropped_files.push_back((dir / "broken.json").string());
  frame();
  EXPECT_NE(state.error.find("broken.json"), std::string::npos) << state.error;
  EXPECT_EQ(state.doc.scenario.title, "dropped lesson");
  EXPECT_EQ(state.doc.scenario.K(5, 3), -2.0f);
  fs::remove_all(dir);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Documents too large for dense stages
// ---------------------------------------------------------------------------------------------

// A document whose n × m stages are too big to keep is streamed on a background thread: the
// window keeps drawing, shows progress, and then the downsampled weights, the output and every
// row's diagnostics; the lesson views, explain and saturation panels say what they cannot show.
TEST_F(Harness, TooLargeForDenseStagesStreamsInTheBackground) {
  const int n = static_cast<int>(kMaxDenseSide) + 808;  // 9000
  apply(state, edits::set_mask_kind(MaskKind::Causal));
  ASSERT_FALSE(apply(state, services, Resize{Dim::N, n}));
  ASSERT_TRUE(state.pending_resize.active);
  EXPECT_TRUE(state.pending_resize.streams);
  state.pending_resize.active = false;
  ASSERT_TRUE(apply(state, services, Resize{Dim::N, n, true}));
  frame();
  ASSERT_TRUE(state.results.job != nullptr);
  EXPECT_FALSE(state.results.has_result);  // the 3-token result is not shown for a 9000-token document
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (state.results.job && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    frame();
  }
  ASSERT_EQ(state.results.job, nullptr) << "the streaming run did not finish";
  ASSERT_TRUE(state.results.has_result) << state.error;
  EXPECT_FALSE(result().dense);
  EXPECT_EQ(result().n, n);
  EXPECT_EQ(result().rows.size(), static_cast<size_t>(n));
  EXPECT_EQ(result().heatmap.mean.rows(), 1024);
  EXPECT_EQ(state.results.streamed.output.rows(), 1024);
  // The causal mask's empty blocks (above the diagonal) are hatched; none below it.
  ASSERT_EQ(state.results.streamed.empty.rows(), 1024);
  EXPECT_TRUE(state.results.streamed.empty(0, 1023));
  EXPECT_FALSE(state.results.streamed.empty(1023, 0));
  EXPECT_LT(state.results.streamed.max_range.first, state.results.streamed.max_range.second);
  EXPECT_EQ(result().scores.size(), 0);
  // Rows of weights sum to 1, so across a pixel row the block means times the keys each covers sum to 1.
  const Heatmap& hm = result().heatmap;
  for (const Eigen::Index y : {Eigen::Index{0}, Eigen::Index{511}, Eigen::Index{1023}}) {
    double sum = 0;
    for (Eigen::Index x = 0; x < 1024; ++x) {
      sum += hm.mean(y, x) * static_cast<double>(pixel_first(x + 1, n, 1024) - pixel_first(x, n, 1024));
    }
    EXPECT_NEAR(sum, 1.0, 1e-3) << "pixel row " << y;
  }
  frame();
  EXPECT_TRUE(state.pipeline.drawn[static_cast<size_t>(Stage::Weights)].drawn);
  EXPECT_TRUE(state.pipeline.drawn[static_cast<size_t>(Stage::Output)].drawn);
  // Hover and click the downsampled weights: read-out, no per-cell arithmetic, no crash.
  const ImVec2 p = cell_center(Stage::Weights, 500, 500);
  click(p);
  state.focus_panel = "Saturation";
  frame();
  frame();
  state.focus_panel = "Explain a cell";
  frame();
  frame();
  // Toggling scaling recomputes in the background and keeps the streamed result meanwhile.
  apply(state, edits::toggle_scale(state.doc));
  frame();
  ASSERT_TRUE(state.results.job != nullptr);
  EXPECT_TRUE(state.results.has_result);
  apply(state, services, CancelStreaming{});
  frame();
  EXPECT_TRUE(state.results.job_cancelled);
  EXPECT_EQ(state.results.job, nullptr);
  // Undo back to three tokens: computed at once, dense again.
  apply(state, edits::toggle_scale(state.doc));
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  apply(state, services, Undo{});
  frame();
  EXPECT_EQ(state.results.job, nullptr);
  ASSERT_TRUE(state.results.has_result);
  EXPECT_TRUE(result().dense);
  EXPECT_EQ(result().n, 3);
  EXPECT_NEAR(result().weights(2, 2), 0.503, 1e-3);
  EXPECT_EQ(state.doc.scenario.options.mask.kind, MaskKind::None);
}

TEST_F(Harness, AbsurdSizesAreRefusedWithTheMemoryTheyNeed) {
  EXPECT_FALSE(apply(state, services, Resize{Dim::N, kMaxTokens + 1, true}));
  EXPECT_NE(state.error.find("at most"), std::string::npos) << state.error;
  state.error.clear();
  ASSERT_TRUE(apply(state, services, Resize{Dim::Dk, kMaxDim, true}));
  frame();
  EXPECT_TRUE(result().dense);
  EXPECT_EQ(result().d_k, kMaxDim);
  // A million tokens × d_k = 65536 would need terabytes for Q and K alone.
  EXPECT_FALSE(apply(state, services, Resize{Dim::N, kMaxTokens, true}));
  EXPECT_NE(state.error.find("Q, K and V need"), std::string::npos) << state.error;
  EXPECT_EQ(state.doc.scenario.Q.rows(), 3);
  frame();
  EXPECT_TRUE(state.results.has_result);
  EXPECT_EQ(state.results.job, nullptr);
}

}  // namespace
}  // namespace attnlab::gui
