// The Export dialog on an ImGui context with no window: what it writes is byte-identical to
// `attnlab export` with the same options, it asks before replacing a file, and it says why it
// refuses in one sentence.
#include "engine/lessons/presets.hpp"
#include "gui/dialogs/export_dialog.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/state/compute.hpp"
#include "gui/shell/apply_command.hpp"
#include "headless_imgui.hpp"
#include "support/files.hpp"

#include <gtest/gtest.h>
#include <imgui.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace attnlab::gui {
namespace {

namespace fs = std::filesystem;

class ExportDialog : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override {
    start(ImVec2(1600, 1000), TestFonts::Default, load_preset("causal-six"));
    recompute_if_needed(state, services);
    dir = fs::temp_directory_path() / ("attnlab-export-dialog-" + std::to_string(::getpid()));
    fs::create_directories(dir);
  }
  void TearDown() override {
    stop();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  fs::path dir;
};

TEST_F(ExportDialog, PngIsByteIdenticalToTheCli) {
  ASSERT_TRUE(state.results.has_result);
  apply(state, services, OpenExport{attnlab::Stage::Weights});
  EXPECT_TRUE(window_open(state.view, "Export"));
  ExportUi& ui = state.export_ui;
  ui.annotate = true;
  ui.colormap = "cividis";
  ui.width_px = 640;
  ui.directory = dir.string();
  ui.file_name = "gui.png";
  frame();
  frame();
  // The preview is the PNG as it will be written (no GL here, so only its size is kept).
  EXPECT_EQ(ui.preview_w, 640);
  EXPECT_TRUE(ui.preview_error.empty()) << ui.preview_error;
  ASSERT_TRUE(apply(state, services, ExportFile{false})) << ui.error;

  const fs::path cli = dir / "cli.png";
  const std::string cmd = std::string("\"") + ATTNLAB_EXE + "\" export --preset causal-six --backend cpu --stage weights" +
                          " --annotate --colormap cividis --width 640 --out \"" + cli.string() + "\"";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const std::string a = slurp(dir / "gui.png"), b = slurp(cli);
  EXPECT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "the GUI's PNG (" << a.size() << " bytes) differs from the CLI's (" << b.size() << " bytes)";

  // The pipeline figure too, at the default width.
  apply(state, services, OpenExport{Stage::Pipeline});
  ui.directory = dir.string();
  ui.file_name = "pipeline.png";
  ui.annotate = false;
  ui.colormap.clear();
  ui.width_px = 0;
  ASSERT_TRUE(apply(state, services, ExportFile{false})) << ui.error;
  const std::string cmd2 = std::string("\"") + ATTNLAB_EXE + "\" export --preset causal-six --backend cpu --stage pipeline --out \"" +
                           (dir / "cli-pipeline.png").string() + "\"";
  ASSERT_EQ(std::system(cmd2.c_str()), 0) << cmd2;
  EXPECT_TRUE(slurp(dir / "pipeline.png") == slurp(dir / "cli-pipeline.png"));
}

TEST_F(ExportDialog, AsksBeforeReplacingAndExplainsRefusals) {
  apply(state, services, OpenExport{attnlab::Stage::Weights});
  ExportUi& ui = state.export_ui;
  ui.directory = dir.string();
  ui.format = ExportFormat::Csv;
  ui.file_name = "w.csv";
  ASSERT_TRUE(apply(state, services, ExportFile{false})) << ui.error;
  const std::string first = slurp(dir / "w.csv");
  ui.stage = Stage::Scores;
  EXPECT_FALSE(apply(state, services, ExportFile{false}));
  EXPECT_TRUE(ui.confirm_overwrite);
  EXPECT_EQ(slurp(dir / "w.csv"), first);
  frame();  // the question is shown
  ASSERT_TRUE(apply(state, services, ExportFile{true})) << ui.error;
  EXPECT_NE(slurp(dir / "w.csv"), first);
  EXPECT_FALSE(ui.confirm_overwrite);

  ui.directory = (dir / "missing").string();
  EXPECT_FALSE(apply(state, services, ExportFile{false}));
  EXPECT_NE(ui.error.find("does not exist"), std::string::npos) << ui.error;

  ui.directory = dir.string();
  ui.stage = Stage::Pipeline;  // as CSV
  EXPECT_FALSE(apply(state, services, ExportFile{false}));
  EXPECT_NE(ui.error.find("pipeline"), std::string::npos) << ui.error;

  ui.stage = Stage::Weights;
  ui.format = ExportFormat::Png;
  ui.file_name = "w.png";
  ui.fixed_range = true;
  ui.range_lo = 1;
  ui.range_hi = 0;
  EXPECT_FALSE(apply(state, services, ExportFile{false}));
  EXPECT_NE(ui.error.find("Range"), std::string::npos) << ui.error;
  frame();  // drawn with the error in place, no preview of an impossible range
  size_t files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++files;
  EXPECT_EQ(files, 1u);
}

TEST_F(ExportDialog, ClipboardTextIsTheEnginesLatexAndCsv) {
  const std::string tex = stage_clipboard_text(state.results, shown_scenario(state.results, state.doc), attnlab::Stage::Weights, ExportFormat::Tex, 2);
  EXPECT_EQ(tex, latex_bmatrix(state.results.result.weights, 2));
  EXPECT_EQ(tex.rfind("\\begin{bmatrix}1.00 & 0.00", 0), 0u) << tex;
  const std::string csv = stage_clipboard_text(state.results, shown_scenario(state.results, state.doc), attnlab::Stage::Scores, ExportFormat::Csv, 0);
  EXPECT_EQ(csv, stage_csv(stage_data(state.doc.scenario, state.results.result, attnlab::Stage::Scores)));
  ImGui::SetClipboardText(tex.c_str());
  EXPECT_EQ(std::string(ImGui::GetClipboardText()), tex);
}

TEST_F(ExportDialog, ScreenshotRequestLeavesTheDialogOutOfTheNextFrame) {
  apply(state, services, OpenExport{attnlab::Stage::Weights});
  state.export_ui.directory = dir.string();
  frame();
  apply(state, services, WindowScreenshot{});
  EXPECT_EQ(fs::path(state.export_ui.screenshot_path).parent_path(), dir);
  EXPECT_FALSE(window_open(state.view, "Export"));
  EXPECT_TRUE(state.export_ui.reopen_after_screenshot);
  frame();
}

}  // namespace
}  // namespace attnlab::gui
