// Panel tests' ImGui context with no window and no GL: the display size, the font atlas built
// (with the real DejaVu fonts when asked, as the app loads them), GLFW's key map for text fields,
// and the CPU backend. Tear down with ImGui::DestroyContext().
#pragma once

#include "gui/shell/theme.hpp"
#include "gui/state/services.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>

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
  if (fonts == TestFonts::Real) load_fonts(services);
  unsigned char* pixels = nullptr;
  int w = 0, h = 0;
  io.Fonts->GetTexDataAsRGBA32(&pixels, &w, &h);
  services.backend = make_cpu_backend();
}

}  // namespace attnlab::gui
