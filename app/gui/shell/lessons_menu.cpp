// The Lessons menu: every built-in lesson (engine/lessons/presets.hpp) in curriculum order, numbered, with
// the open one ticked, and the classroom walk-through.
#include "gui/shell/lessons_menu.hpp"

#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/presets.hpp"

#include <imgui.h>

#include <cstdio>

namespace attnlab::gui {

void draw_lessons_menu(const ViewContext& ctx, bool walking, Commands& out) {
  int k = 0;
  for (const PresetInfo& p : list_presets()) {
    char label[320];
    std::snprintf(label, sizeof label, "%2d. %s###%s", ++k, p.title.c_str(), p.name.c_str());
    if (ImGui::MenuItem(label, nullptr, p.title == ctx.doc.scenario.title)) {
      out.push_back(LoadPreset{p.name});
      out.push_back(StopWalkthrough{});
      // A lesson with a special view opens on it.
      try {
        if (lesson_view(load_preset(p.name).lesson) != kPlainView) out.push_back(ShowWindow{"Lesson view", true});
      } catch (const InputError&) {
      }
    }
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("--preset %s", p.name.c_str());
  }
  ImGui::Separator();
  if (ImGui::MenuItem("Walk through step by step", "Space / →", walking)) {
    if (walking) out.push_back(StopWalkthrough{});
    else out.push_back(StartWalkthrough{});
  }
}

}  // namespace attnlab::gui
