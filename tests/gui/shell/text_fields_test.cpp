// A text field whose text the app changes while nobody is typing in it (the file dialog's "../", a
// cell's value after an undo), then clicked again and Ctrl+Z or Ctrl+Y pressed: ImGui 1.86 replayed
// the old history at places past the new text's end and its assert aborted the app (the GUI monkey
// found it in the file dialog, docs/ROBUSTNESS.md). The app's frame now starts each click into a
// field from the text it shows.
#include "engine/lessons/presets.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui_stdlib.h>

#include <string>

namespace attnlab::gui {
namespace {

class TextFields : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override {
    start(ImVec2(1280, 800), TestFonts::Default, default_scenario());
    ImGuiIO& io = ImGui::GetIO();
    io.KeyMap[ImGuiKey_Z] = GLFW_KEY_Z;
    io.KeyMap[ImGuiKey_Y] = GLFW_KEY_Y;
    field_frame();
  }
  void TearDown() override { stop(); }

  // One app frame with a field of the app's (`text`) in a window of its own over everything.
  void field_frame() {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    draw_app(state, services);
    ImGui::SetNextWindowPos(ImVec2(400, 300));
    ImGui::SetNextWindowSize(ImVec2(400, 100));
    ImGui::SetNextWindowFocus();
    ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoSavedSettings);
    ImGui::InputText("##field", &text);
    field_min = ImGui::GetItemRectMin();
    field_max = ImGui::GetItemRectMax();
    field_active = ImGui::IsItemActive();
    ImGui::End();
    ImGui::Render();
  }
  void click_at(ImVec2 p) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = p;
    field_frame();
    io.MouseDown[0] = true;
    field_frame();
    io.MouseDown[0] = false;
    field_frame();
  }
  void click_field() { click_at(ImVec2((field_min.x + field_max.x) / 2, (field_min.y + field_max.y) / 2)); }
  void ctrl_key(int key) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    io.KeysDown[key] = true;
    field_frame();
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    field_frame();
  }
  void type(const char* chars) {
    for (const char* c = chars; *c; ++c) {
      ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(*c));
      field_frame();
    }
  }

  std::string text;
  ImVec2 field_min, field_max;
  bool field_active = false;
};

TEST_F(TextFields, UndoAndRedoAfterTheAppChangedTheTextStartFromTheTextShown) {
  click_field();
  ASSERT_TRUE(field_active) << "the click did not reach the field";
  type("abcdef");
  ASSERT_EQ(text, "abcdef");
  ctrl_key(GLFW_KEY_Z);  // the last letter undone: a redo would put it back at place 5
  ASSERT_EQ(text, "abcde");
  click_at(ImVec2(field_min.x + 10, field_max.y + 30));  // the window around it: the field is left
  ASSERT_FALSE(field_active);
  text = "x";  // the app changes it, as "../" changes the file dialog's folder
  click_field();
  ASSERT_TRUE(field_active);
  ctrl_key(GLFW_KEY_Y);  // ImGui 1.86 alone: inserts at place 5 of a 1-letter text and aborts
  EXPECT_EQ(text, "x");
  ctrl_key(GLFW_KEY_Z);  // nothing typed since the click: nothing to undo
  EXPECT_EQ(text, "x");
  // Typing after the click is undone as usual.
  type("y");
  EXPECT_EQ(text, "xy");
  ctrl_key(GLFW_KEY_Z);
  EXPECT_EQ(text, "x");
  ctrl_key(GLFW_KEY_Y);
  EXPECT_EQ(text, "xy");
}

}  // namespace
}  // namespace attnlab::gui
