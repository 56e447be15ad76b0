// The Backend menu: CPU, GPU (GL compute on the window's own context) or auto.
#include "gui/shell/backend_menu.hpp"

#include "engine/gpu/backend_choice.hpp"

#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"

#include <GLFW/glfw3.h>

namespace attnlab::gui {

namespace {

// The GPU backend on the window's context, or BackendUnavailable saying why.
std::unique_ptr<Backend> gpu_on_window() {
  // Window-less tests have no context; asking GL then would abort inside libepoxy.
  if (glfwGetCurrentContext() == nullptr) throw BackendUnavailable("no GPU backend: there is no OpenGL window context");
  return make_gpu_backend_on_current_context();
}

}  // namespace

void select_backend(AppState& state, Services& services, BackendChoice choice) {
  std::unique_ptr<Backend> next;
  try {
    ChosenBackend chosen = choose_backend(choice, gpu_on_window);
    if (!chosen.why_cpu.empty()) state.notice = "auto: using the CPU (" + chosen.why_cpu + ")";
    next = std::move(chosen.backend);
  } catch (const BackendUnavailable& e) {
    state.error = e.what();  // --backend gpu / GPU chosen: the old backend stays
    return;
  }
  state.scaling.job.reset();  // a running lab used the old backend's sampler
  state.scaling.sampler.reset();
  services.backend = std::move(next);
  state.results.backend_choice = choice;
  state.results.backend_description = services.backend->description();
  state.results.needs_compute = true;
  if (state.error.rfind("no GPU backend", 0) == 0) state.error.clear();
}

void draw_backend_menu(AppState& state, Services& services) {
  struct Item {
    const char* label;
    BackendChoice choice;
    const char* tip;
  };
  const Item items[] = {
      {"CPU (Eigen)", BackendChoice::Cpu, "The reference engine: double-precision softmax on the CPU."},
      {"GPU (OpenGL compute)", BackendChoice::Gpu, "Compute shaders on this window's OpenGL 4.3 context."},
      {"Auto", BackendChoice::Auto, "A hardware GPU where OpenGL 4.3 is available, else the CPU."},
  };
  for (const Item& item : items) {
    if (ImGui::MenuItem(item.label, nullptr, state.results.backend_choice == item.choice)) select_backend(state, services, item.choice);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", item.tip);
  }
  ImGui::Separator();
  ImGui::TextDisabled("Active: %s", services.backend->description().c_str());
}

}  // namespace attnlab::gui
