// The Scaling lab panel and the Backend menu driven on an ImGui context with no window: a run
// proceeds a slice per frame to the same figures as run_scaling, and GPU without a window is
// refused in place.
#include "gui/shell/backend_menu.hpp"
#include "gui/shell/panel_registry.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>

namespace attnlab::gui {
namespace {

class ScalingPanelGui : public ::testing::Test {
protected:
  void SetUp() override {
    start_headless_imgui(services, ImVec2(1280, 800));
  }
  void TearDown() override { ImGui::DestroyContext(); }
  void frame() {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    ImGui::Begin("Scaling lab");
    draw_panel(state, services, Panel::ScalingLab);
    ImGui::End();
    ImGui::Render();
  }
  AppState state;
  Services services;
};

TEST_F(ScalingPanelGui, RunsASlicePerFrameToTheSameFigures) {
  state.scaling.dk_on = {};
  state.scaling.dk_on[3] = state.scaling.dk_on[6] = true;  // d_k 8 and 64
  state.scaling.trials = 200;
  frame();
  EXPECT_FALSE(state.scaling.running());
  // Press Run the way the panel does.
  ScalingOptions o;
  o.d_ks = {8, 64};
  o.trials = 200;
  state.scaling.job.emplace(o);
  state.scaling.sampler = make_scaling_sampler(*services.backend);
  for (int i = 0; i < 100 && state.scaling.running(); ++i) frame();
  ASSERT_FALSE(state.scaling.running());
  ASSERT_EQ(state.scaling.result.rows.size(), 2u);
  auto sampler = make_cpu_scaling_sampler();
  const ScalingResult expected = run_scaling(*sampler, o);
  EXPECT_EQ(state.scaling.result.rows[1].unscaled_std, expected.rows[1].unscaled_std);
  EXPECT_EQ(state.scaling.result.rows[1].scaled_max_prob, expected.rows[1].scaled_max_prob);
  frame();  // draws charts, table and histogram
  EXPECT_TRUE(state.scaling.error.empty()) << state.scaling.error;
}

TEST_F(ScalingPanelGui, GpuWithoutAWindowIsRefusedInPlaceAndAutoFallsBack) {
  apply(state, services, SelectBackend{BackendChoice::Gpu});
  EXPECT_EQ(services.backend->name(), "cpu");
  EXPECT_NE(state.error.find("no GPU backend"), std::string::npos) << state.error;
  EXPECT_EQ(state.results.backend_choice, BackendChoice::Cpu);
  apply(state, services, SelectBackend{BackendChoice::Auto});
  EXPECT_EQ(services.backend->name(), "cpu");
  EXPECT_EQ(state.results.backend_choice, BackendChoice::Auto);
  EXPECT_TRUE(state.error.empty()) << state.error;
  EXPECT_FALSE(state.notice.empty());
}

}  // namespace
}  // namespace attnlab::gui
