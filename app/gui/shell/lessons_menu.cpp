// The Lessons menu: every built-in lesson (engine/lessons/presets.hpp) in curriculum order, numbered, with
// the open one ticked, and the classroom walk-through.
#include "gui/shell/lessons_menu.hpp"

#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/presets.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/shell/apply_command.hpp"

#include <cstdio>

namespace attnlab::gui {

void draw_lessons_menu(AppState& state, Services& services) {
  int k = 0;
  for (const PresetInfo& p : list_presets()) {
    char label[320];
    std::snprintf(label, sizeof label, "%2d. %s###%s", ++k, p.title.c_str(), p.name.c_str());
    if (ImGui::MenuItem(label, nullptr, p.title == state.doc.scenario.title)) {
      actions::load_preset(state, p.name);
      apply(state, services, StopWalkthrough{});
      // A lesson with a special view opens on it.
      try {
        if (lesson_view(load_preset(p.name).lesson) != kPlainView) window_open(state.view, "Lesson view") = true;
      } catch (const InputError&) {
      }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("--preset %s", p.name.c_str());
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Walk through step by step", "Space / →", state.lesson.walk.active)) {
    if (state.lesson.walk.active) apply(state, services, StopWalkthrough{});
    else apply(state, services, StartWalkthrough{});
  }
}

}  // namespace attnlab::gui
