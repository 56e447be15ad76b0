// The Backend menu: CPU, GPU (GL compute on the window's own context) or auto.
#include "gui/shell/backend_menu.hpp"

#include <imgui.h>

namespace attnlab::gui {

void draw_backend_menu(const ViewContext& ctx, Commands& out) {
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
    if (ImGui::MenuItem(item.label, nullptr, ctx.results.backend_choice == item.choice)) out.push_back(SelectBackend{item.choice});
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", item.tip);
  }
  ImGui::Separator();
  ImGui::TextDisabled("Active: %s", ctx.services.backend->description().c_str());
}

}  // namespace attnlab::gui
