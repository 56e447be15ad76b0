// The Lessons menu: every built-in lesson (engine/presets.hpp), in curriculum order.
#include "engine/presets.hpp"
#include "gui/actions.hpp"
#include "gui/panels.hpp"

namespace attnlab::gui {

void draw_lessons_menu(AppState& state, Services& services) {
  (void)services;
  for (const PresetInfo& p : list_presets()) {
    const std::string label = p.title + "###" + p.name;
    if (ImGui::MenuItem(label.c_str())) actions::load_preset(state, p.name);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("--preset %s", p.name.c_str());
  }
}

}  // namespace attnlab::gui
