// The file dialog's keys: Esc closes it as Cancel does, except while a field is being edited, where
// Esc only ends the edit (the GUI monkey of docs/ROBUSTNESS.md, like a person, was otherwise held in
// it until it happened to click Cancel).
#include "engine/lessons/presets.hpp"
#include "gui/dialogs/file_dialog.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui_internal.h>

namespace attnlab::gui {
namespace {

class FileDialog : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override {
    start(ImVec2(1280, 800), TestFonts::Default, default_scenario());
    frame();
    apply(state, services, ChooseFile{FilePurpose::OpenScenario, {}});
    frame();
    frame();
  }
  void TearDown() override { stop(); }
  bool dialog_open() const { return state.file_dialog.purpose != FilePurpose::None; }
};

TEST_F(FileDialog, EscClosesItAsCancelDoes) {
  ASSERT_TRUE(dialog_open());
  const ImGuiWindow* w = ImGui::FindWindowByName("##file_dialog");
  ASSERT_TRUE(w && w->Active) << "the dialog is not drawn";
  press(GLFW_KEY_ESCAPE);
  EXPECT_FALSE(dialog_open());
  frame();
  EXPECT_FALSE(w->Active) << "the dialog is still drawn";
}

TEST_F(FileDialog, EscWhileEditingAFieldOnlyEndsTheEdit) {
  const ImGuiWindow* w = ImGui::FindWindowByName("##file_dialog");
  ASSERT_TRUE(w && w->Active);
  // Below the list of files: the file name field, then room for a sentence. A click at each height
  // there until the field takes the keys.
  const ImGuiStyle& style = ImGui::GetStyle();
  const float x = w->Pos.x + style.WindowPadding.x + 20, bottom = w->Pos.y + w->Size.y - style.WindowPadding.y;
  bool editing = false;
  for (float y = bottom - 2; y > bottom - ImGui::GetFrameHeightWithSpacing() * 5 && !editing; y -= ImGui::GetFontSize() / 2) {
    click(ImVec2(x, y));
    editing = ImGui::GetIO().WantTextInput;
  }
  ASSERT_TRUE(editing) << "no click reached the file name field";
  ASSERT_TRUE(dialog_open());
  press(GLFW_KEY_ESCAPE);
  frame();  // WantTextInput tells of the frame before
  EXPECT_FALSE(ImGui::GetIO().WantTextInput) << "Esc ends the edit";
  EXPECT_TRUE(dialog_open()) << "and only that";
  press(GLFW_KEY_ESCAPE);
  EXPECT_FALSE(dialog_open());
}

}  // namespace
}  // namespace attnlab::gui
