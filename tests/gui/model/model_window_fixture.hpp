// The Model window alone on a window-less ImGui context (1280 × 720) over the causal-six lesson, a
// frame at a time: the fixture that model_window_test and generate_panel_test build on.
#pragma once

#include "engine/lessons/presets.hpp"
#include "gui/model_window/model_window.hpp"
#include "gui/shell/apply_command.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/model_window/model_job.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace attnlab::gui {

class ModelWindowTest : public ::testing::Test {
protected:
  void SetUp() override {
    start_headless_imgui(services, ImVec2(1280, 720));
    reset_document(state, load_preset("causal-six"), "");
  }
  void TearDown() override {
    state.model.job.reset();
    ImGui::DestroyContext();
  }
  // One frame of the window filling the display, with the mouse at `mouse` and its left button
  // down when `click`.
  void frame(ImVec2 mouse = ImVec2(-1, -1), bool click = false) {
    ImGuiIO& io = ImGui::GetIO();
    io.DeltaTime = 1.0f / 60;
    io.MousePos = mouse;
    io.MouseDown[0] = click;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin("Model");
    draw_panel(state, services, Panel::Model);
    ImGui::End();
    ImGui::Render();
  }
  // Frames until the model's run or generation in progress is done (10 s at the most).
  void wait_for_run() {
    for (int i = 0; i < 5000 && state.model.job; ++i) {
      frame();
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_FALSE(state.model.job) << "the run did not finish";
  }

  AppState state;
  Services services;
};

}  // namespace attnlab::gui
