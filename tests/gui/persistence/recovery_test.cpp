// The recovery file and the "Restore unsaved work?" prompt, on an ImGui context with no window;
// and the .bak kept when saving over a scenario. (The kill -9 test is recovery_kill_test.sh.)
#include "engine/io/atomic_file.hpp"
#include "engine/lessons/presets.hpp"
#include "gui/dialogs/recovery_prompt.hpp"
#include "gui/persistence/recovery_store.hpp"
#include "gui/state/edits.hpp"
#include "gui/shell/apply_command.hpp"
#include "headless_imgui.hpp"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

namespace attnlab::gui {
namespace {

namespace fs = std::filesystem;

// The recovery store as the window's frame calls it: on the state's parts, a sentence it returns
// going to the status line.
void recovery_tick(AppState& state, const fs::path& dir, double now) {
  if (std::string why = recovery_tick(state.recovery, {state.doc, state.doc_version, state.scenario_path}, true, dir, now);
      !why.empty())
    state.error = why;
}
bool check_for_recovery(AppState& state, const fs::path& dir) {
  if (std::string why = check_for_recovery(state.recovery, state.doc_version, dir); !why.empty()) state.error = why;
  return state.recovery.offer;
}
// Save, as File > Save does: the file handed to the shell's apply.
void save_scenario_file(AppState& state, const std::string& path) {
  Services services;
  apply(state, services, UseFile{FilePurpose::SaveScenario, path});
}
// Restore, as the prompt's button does: the work handed to the shell's apply.
void restore_recovered_work(AppState& state) {
  if (std::optional<RecoveredWork> w = take_recovered_work(state.recovery)) {
    Commands out{RestoreWork{w->doc, w->scenario_path, w->saved_at}};
    Services services;
    apply(state, services, out);
  }
}

class Recovery : public ::testing::Test {
protected:
  void SetUp() override {
    dir = fs::temp_directory_path() / ("attnlab-recovery-test-" + std::to_string(::getpid()) + "-" +
                                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir);
    fs::create_directories(dir);
    reset_document(state, default_scenario(), "");
    check_for_recovery(state, dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // One edit, then enough frame-clock time for the debounced write.
  void edit_and_wait() {
    apply(state, edits::set_temperature(2.5));
    apply(state, services, EndMerge{});
    recovery_tick(state, dir, clock);
    clock += kRecoveryDelaySeconds + 0.01;
    recovery_tick(state, dir, clock);
  }

  fs::path dir;
  AppState state;
  Services services;
  double clock = 100;
};

TEST_F(Recovery, NothingIsWrittenUntilTheDocumentChanges) {
  for (int i = 0; i < 5; ++i) recovery_tick(state, dir, clock += 1);
  EXPECT_FALSE(fs::exists(recovery_path(dir)));
}

TEST_F(Recovery, AChangeIsWrittenAMomentLaterNotAtOnce) {
  apply(state, edits::set_temperature(2.5));
  recovery_tick(state, dir, clock);
  EXPECT_FALSE(fs::exists(recovery_path(dir))) << "written before the edit settled";
  recovery_tick(state, dir, clock + kRecoveryDelaySeconds + 0.01);
  ASSERT_TRUE(fs::exists(recovery_path(dir)));
  const RecoveredWork w = parse_recovery(read_file(recovery_path(dir)), "recovery.json");
  EXPECT_EQ(w.doc.scenario.options.temperature, 2.5);
  EXPECT_EQ(w.doc.scenario.Q, state.doc.scenario.Q);
  // No temporary files are left next to it.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
}

TEST_F(Recovery, TheNextStartOffersTheWorkAndRestoreBringsItBackUndoably) {
  edit_and_wait();
  const Document edited = state.doc;

  AppState next;  // a new run after kill -9
  reset_document(next, default_scenario(), "");
  ASSERT_TRUE(check_for_recovery(next, dir));
  EXPECT_NE(next.doc.scenario.options.temperature, 2.5);
  // While the offer is open the file is left alone, whatever happens.
  recovery_tick(next, dir, 1e6);
  EXPECT_TRUE(parse_recovery(read_file(recovery_path(dir)), "r").doc.scenario.options.temperature == 2.5);
  restore_recovered_work(next);
  EXPECT_FALSE(next.recovery.offer);
  EXPECT_EQ(next.doc.scenario.options.temperature, 2.5);
  EXPECT_EQ(next.doc.scenario.Q, edited.scenario.Q);
  EXPECT_EQ(next.doc.self_attention, edited.self_attention);
  EXPECT_TRUE(can_undo(next.history));
  EXPECT_EQ(undo_name(next.history), "restore unsaved work");
}

TEST_F(Recovery, DiscardRemovesTheFile) {
  edit_and_wait();
  AppState next;
  reset_document(next, default_scenario(), "");
  ASSERT_TRUE(check_for_recovery(next, dir));
  discard_recovered_work(next.recovery, dir);
  EXPECT_FALSE(next.recovery.offer);
  EXPECT_FALSE(fs::exists(recovery_path(dir)));
  EXPECT_NE(next.doc.scenario.options.temperature, 2.5);
}

TEST_F(Recovery, ABrokenFileIsRemovedWithASentenceNotACrash) {
  for (const char* text : {"", "{", "[]", R"({"format": "attnlab-recovery"})",
                           R"({"format": "attnlab-recovery", "scenario": {"Q": [[1e999]]}})",
                           R"({"format": "attnlab-recovery", "scenario": {"Q": [[1]], "K": [[1]], "V": [[1]]}, "saved_at": 3})"}) {
    write_file_atomic(recovery_path(dir), text);
    AppState next;
    reset_document(next, default_scenario(), "");
    EXPECT_FALSE(check_for_recovery(next, dir)) << text;
    EXPECT_FALSE(fs::exists(recovery_path(dir))) << text;
    EXPECT_NE(next.error.find("recovery file"), std::string::npos) << text;
  }
}

TEST_F(Recovery, AnUnwritableFolderIsReportedAndTheAppGoesOn) {
  const fs::path file_not_dir = dir / "plain-file";
  write_file_atomic(file_not_dir, "x");
  apply(state, edits::set_temperature(3.0));
  recovery_tick(state, file_not_dir, clock);
  recovery_tick(state, file_not_dir, clock + 1);
  EXPECT_FALSE(state.recovery.write_error.empty());
}

TEST_F(Recovery, ACleanExitRemovesTheFile) {
  edit_and_wait();
  ASSERT_TRUE(fs::exists(recovery_path(dir)));
  remove_recovery_file(dir);
  EXPECT_FALSE(fs::exists(recovery_path(dir)));
}

// A large document is written on a background thread; the next edit waits for it, a clean exit
// waits for it before removing the file, and what was written reads back as the document.
TEST_F(Recovery, LargeDocumentsAreWrittenInTheBackground) {
  Scenario big = default_scenario();
  const Eigen::Index n = 70000;  // 70 000 × 8 × 3 numbers: more than kBackgroundRecoveryNumbers
  big.Q = Matrix::Constant(n, 8, 0.5f);
  big.K = Matrix::Constant(n, 8, -0.25f);
  big.V = Matrix::Constant(n, 8, 2.0f);
  big.query_tokens.clear();
  big.key_tokens.clear();
  big.options.mask = Mask{};
  ASSERT_GT(big.Q.size() + big.K.size() + big.V.size(), kBackgroundRecoveryNumbers);
  apply(state, services, LoadScenario{big, "", "load a big document"});
  ASSERT_TRUE(state.error.empty()) << state.error;
  recovery_tick(state, dir, clock);
  clock += kRecoveryDelaySeconds + 0.01;
  recovery_tick(state, dir, clock);
  ASSERT_TRUE(state.recovery.in_flight != nullptr);
  // An edit while the write runs is written after it, never lost.
  apply(state, edits::set_cell(Which::V, n - 1, 7, 9.0f));
  apply(state, services, EndMerge{});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (state.recovery.written_version != state.doc_version && std::chrono::steady_clock::now() < deadline) {
    clock += kRecoveryDelaySeconds + 0.01;
    recovery_tick(state, dir, clock);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  finish_recovery_writes(state.recovery);
  EXPECT_TRUE(state.recovery.write_error.empty()) << state.recovery.write_error;
  const RecoveredWork w = parse_recovery(read_file(recovery_path(dir)), "recovery.json");
  ASSERT_EQ(w.doc.scenario.V.rows(), n);
  EXPECT_EQ(w.doc.scenario.V(n - 1, 7), 9.0f);
  EXPECT_EQ(w.doc.scenario.Q(123, 4), 0.5f);
  remove_recovery_file(dir);
  EXPECT_FALSE(fs::exists(recovery_path(dir)));
}

// The prompt as drawn by the real panel code: Enter restores, Esc discards.
class RecoveryPrompt : public Recovery {
protected:
  void SetUp() override {
    Recovery::SetUp();
    start_headless_imgui(services, ImVec2(1280, 800));
    services.config_dir = dir;
  }
  void TearDown() override {
    ImGui::DestroyContext();
    Recovery::TearDown();
  }
  void frame(int key = -1) {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60;
    for (bool& k : io.KeysDown) k = false;
    if (key >= 0) io.KeysDown[key] = true;
    ImGui::NewFrame();
    Commands out;
    draw_recovery_prompt(next.recovery, services.config_dir, out);
    apply(next, services, out);
    ImGui::Render();
  }
  AppState next;
};

TEST_F(RecoveryPrompt, EnterRestores) {
  edit_and_wait();
  reset_document(next, default_scenario(), "");
  ASSERT_TRUE(check_for_recovery(next, dir));
  frame();
  frame();
  EXPECT_TRUE(next.recovery.offer) << "the offer closed by itself";
  frame(GLFW_KEY_ENTER);
  frame();
  EXPECT_FALSE(next.recovery.offer);
  EXPECT_EQ(next.doc.scenario.options.temperature, 2.5);
  EXPECT_TRUE(fs::exists(recovery_path(dir))) << "restored work is removed only by a clean exit";
}

TEST_F(RecoveryPrompt, EscapeDiscards) {
  edit_and_wait();
  reset_document(next, default_scenario(), "");
  ASSERT_TRUE(check_for_recovery(next, dir));
  frame();
  frame(GLFW_KEY_ESCAPE);
  frame();
  EXPECT_FALSE(next.recovery.offer);
  EXPECT_NE(next.doc.scenario.options.temperature, 2.5);
  EXPECT_FALSE(fs::exists(recovery_path(dir)));
}

TEST_F(Recovery, SavingOverAScenarioKeepsABak) {
  const std::string path = (dir / "lesson.json").string();
  save_scenario_file(state, path);
  ASSERT_TRUE(state.error.empty()) << state.error;
  EXPECT_FALSE(fs::exists(path + ".bak")) << "a first save has nothing to back up";
  const std::string first = read_file(path);
  apply(state, edits::set_temperature(4.0));
  save_scenario_file(state, path);
  ASSERT_TRUE(state.error.empty()) << state.error;
  EXPECT_EQ(read_file(path + ".bak"), first);
  EXPECT_EQ(load_scenario(path).options.temperature, 4.0);
}

}  // namespace
}  // namespace attnlab::gui
