// Presenter mode on a projector: with the real fonts (DejaVu Sans at presenter size) at 1280×720
// and 1920×1080, every lesson's view, every step of the walk-through and the left column draw
// without ImGui asserts, stay on screen, and run past no window's right edge (ImGui clips such
// text: that is how labels ended up cut off). Drives the real panels on a window-less context.
#include "engine/presets.hpp"
#include "gui/actions.hpp"
#include "gui/lesson_views.hpp"
#include "gui/panels.hpp"
#include "gui/theme.hpp"
#include "gui/walkthrough.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace attnlab::gui {
namespace {

struct Screen {
  float w, h;
};

class PresenterLayout : public ::testing::TestWithParam<Screen> {
protected:
  void SetUp() override {
    // The real fonts: their sizes are what must fit.
    start_headless_imgui(services, ImVec2(GetParam().w, GetParam().h), TestFonts::Real);
    reset_document(state, default_scenario(), "");
    state.view.presenter = true;
    state.style_dirty = true;
  }
  void TearDown() override { ImGui::DestroyContext(); }

  void frame() {
    ImGui::NewFrame();
    draw_app(state, services);
    ImGui::Render();
  }

  // Windows whose name contains `part` (child windows are named "parent/child_ID").
  static std::vector<ImGuiWindow*> windows(const std::string& part) {
    std::vector<ImGuiWindow*> out;
    for (ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
      if (w->Active && std::string(w->Name).find(part) != std::string::npos) out.push_back(w);
    return out;
  }

  // How far a window's content runs past its right edge (it has no horizontal scrollbar, so
  // whatever is past it is cut off), in pixels.
  static float overflow_x(const ImGuiWindow* w) {
    return w->ContentSize.x + w->WindowPadding.x * 2.0f - w->InnerRect.GetWidth();
  }

  void expect_fits(const char* what) {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    for (ImGuiWindow* w : windows("Lesson view")) {
      if (w->ParentWindow) continue;  // the view's own tables scroll inside it
      EXPECT_GE(w->Pos.x, 0.0f) << what;
      EXPECT_GE(w->Pos.y, 0.0f) << what;
      EXPECT_LE(w->Pos.x + w->Size.x, display.x + 0.5f) << what << ": the Lesson view runs off the screen";
      EXPECT_LE(w->Pos.y + w->Size.y, display.y + 0.5f) << what << ": the Lesson view runs off the screen";
      EXPECT_LE(overflow_x(w), 2.0f) << what << ": something in the Lesson view is cut at its right edge";
      if (std::getenv("ATTNLAB_TEST_VERBOSE")) std::printf("%s: overflow %.1f content %.1f inner %.1f\n", what, overflow_x(w), w->ContentSize.x, w->InnerRect.GetWidth());
    }
  }

  AppState state;
  Services services;
};

TEST_P(PresenterLayout, UsesThePresenterFont) {
  frame();
  if (!services.fonts.unicode) GTEST_SKIP() << "DejaVu Sans (fonts-dejavu-core) is not installed";
  EXPECT_GE(ImGui::GetFontSize(), 24.0f);
}

TEST_P(PresenterLayout, EveryLessonViewFitsTheScreen) {
  for (const PresetInfo& p : list_presets()) {
    SCOPED_TRACE(p.name);
    actions::load_preset(state, p.name);
    window_open(state, "Lesson view") = true;
    for (int k = 0; k < 3; ++k) frame();
    ASSERT_TRUE(state.error.empty()) << state.error;
    expect_fits(p.name.c_str());
  }
}

TEST_P(PresenterLayout, EveryWalkThroughStepFitsTheScreen) {
  for (const char* lesson : {"three-tokens", "causal-six"}) {
    actions::load_preset(state, lesson);
    frame();
    walk_start(state);
    window_open(state, "Lesson view") = true;
    for (int step = 0; step < kWalkSteps; ++step) {
      state.lesson.walk.step = step;
      frame();
      frame();
      expect_fits((std::string(lesson) + " step " + std::to_string(step + 1)).c_str());
    }
  }
}

TEST_P(PresenterLayout, LeftColumnCutsNoLabel) {
  for (const char* mask : {"none", "padding", "window"}) {
    SCOPED_TRACE(mask);
    actions::set_mask_kind(state, std::string(mask) == "none" ? MaskKind::None
                                  : std::string(mask) == "padding" ? MaskKind::Padding
                                                                   : MaskKind::Window);
    for (int k = 0; k < 3; ++k) frame();
    const auto left = windows("/##left");
    ASSERT_FALSE(left.empty());
    for (const ImGuiWindow* w : left) EXPECT_LE(overflow_x(w), 2.0f) << w->Name;
  }
}

INSTANTIATE_TEST_SUITE_P(Projectors, PresenterLayout, ::testing::Values(Screen{1280, 720}, Screen{1920, 1080}),
                         [](const ::testing::TestParamInfo<Screen>& info) {
                           return std::to_string(static_cast<int>(info.param.w)) + "x" +
                                  std::to_string(static_cast<int>(info.param.h));
                         });

}  // namespace
}  // namespace attnlab::gui
