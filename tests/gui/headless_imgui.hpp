// Panel tests' ImGui context with no window and no GL: the display size, the font atlas built
// (with the real DejaVu fonts when asked, as the app loads them), GLFW's key map for text fields,
// and the CPU backend. Tear down with ImGui::DestroyContext(). HeadlessApp drives the whole app
// frame on it: keys, clicks, one frame at a time; HeadlessAppTest is a test fixture of it.
#pragma once

#include "engine/lessons/presets.hpp"
#include "gui/shell/frame_layout.hpp"
#include "gui/base/theme.hpp"
#include "gui/shell/app_state.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/state/services.hpp"
#include "gui/widgets/attention_map.hpp"

#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <utility>

namespace attnlab::gui {

enum class TestFonts { Default, Real };

inline void start_headless_imgui(Services& services, ImVec2 display, TestFonts fonts = TestFonts::Default) {
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = display;
  io.DeltaTime = 1.0f / 60;
  io.IniFilename = nullptr;
  // What ImGui's GLFW backend sets: text fields read these keys through the key map.
  io.KeyMap[ImGuiKey_Enter] = GLFW_KEY_ENTER;
  io.KeyMap[ImGuiKey_Escape] = GLFW_KEY_ESCAPE;
  io.KeyMap[ImGuiKey_Backspace] = GLFW_KEY_BACKSPACE;
  io.KeyMap[ImGuiKey_Tab] = GLFW_KEY_TAB;
  io.KeyMap[ImGuiKey_A] = GLFW_KEY_A;
  if (fonts == TestFonts::Real) load_fonts(services.fonts, services.glyphs);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  services.backend = make_cpu_backend();
}

// An action's or a view's commands applied as the shell applies them (shell/apply_command.hpp).
inline void apply_commands(AppState& state, Services& services, Commands commands) { apply(state, services, commands); }

// The head whose map button (head_map_button) the pointer was over in the last frame, in a grid of
// `layers` × `heads`; {−1, −1} where it was over none.
inline std::pair<int, int> hovered_head_map(int layers, int heads) {
  const ImGuiContext& g = *GImGui;
  if (!g.HoveredWindow || g.HoveredId == 0) return {-1, -1};
  for (int l = 0; l < layers; ++l) {
    for (int h = 0; h < heads; ++h) {
      if (ImHashStr(head_map_label(l, h).c_str(), 0, g.HoveredWindow->ID) == g.HoveredId) return {l, h};
    }
  }
  return {-1, -1};
}

// Where the pointer found a head's map: the head ({−1, −1}: none) and the place.
struct FoundHeadMap {
  std::pair<int, int> head{-1, -1};
  ImVec2 at;
};

// Finds a head's map as a user does: the pointer moves over the rectangle [min, max) row by row in
// steps of `step` (no longer than a map's smallest side), a frame at each place (`frame_at(p)`
// draws one with the pointer at p), until it is over the map of a head other than `skip`.
template <class FrameAt>
FoundHeadMap find_head_map(ImVec2 min, ImVec2 max, float step, int layers, int heads, std::pair<int, int> skip, FrameAt frame_at) {
  for (float y = min.y; y < max.y; y += step) {
    for (float x = min.x; x < max.x; x += step) {
      frame_at(ImVec2(x, y));
      const std::pair<int, int> head = hovered_head_map(layers, heads);
      if (head.first >= 0 && head != skip) return {head, ImVec2(x, y)};
    }
  }
  return {};
}

// The app's state and services with one whole frame at a time (menus, panels, shortcuts), as
// main_window.cpp runs it. A fixture inherits it and starts the context in SetUp().
struct HeadlessApp {
  AppState state;
  Services services;

  virtual ~HeadlessApp() = default;
  // What a fixture checks after every frame (none by default).
  virtual void after_frame() {}

  // The context, and `doc` as a fresh document (its first frame not yet drawn).
  void start(ImVec2 display, TestFonts fonts, const Scenario& doc) {
    start_headless_imgui(services, display, fonts);
    reset_document(state, doc, "");
  }
  void stop() { ImGui::DestroyContext(); }

  void frame() {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    update_fonts(services.fonts, services.glyphs);  // as the app's frame loop does (no texture here)
    ImGui::NewFrame();
    draw_app(state, services);
    ImGui::Render();
    after_frame();
  }
  // `key` (a GLFW key code) down for one frame and up for the next, with Ctrl and Shift as asked.
  void press(int key, bool ctrl = false, bool shift = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = ctrl;
    io.KeyShift = shift;
    io.KeysDown[key] = true;
    frame();
    io.KeysDown[key] = false;
    frame();
    io.KeyCtrl = io.KeyShift = false;
  }
  // The left button pressed and released at `p` (Shift held when asked), a frame each.
  void click(ImVec2 p, bool shift = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.MousePos = p;
    frame();
    io.KeyShift = shift;
    io.MouseDown[0] = true;
    frame();
    io.MouseDown[0] = false;
    frame();
    io.KeyShift = false;
    frame();
  }
};

// A test of the whole app on the default lesson with the real fonts, its first frame drawn.
class HeadlessAppTest : public ::testing::Test, protected HeadlessApp {
protected:
  explicit HeadlessAppTest(ImVec2 display = ImVec2(1280, 800)) : display_(display) {}
  void SetUp() override {
    start(display_, TestFonts::Real, default_scenario());
    frame();
  }
  void TearDown() override { stop(); }

private:
  ImVec2 display_;
};

}  // namespace attnlab::gui
