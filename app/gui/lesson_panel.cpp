// The lesson in view: its title and what to look at and try (the scenario's description).
#include "gui/panels.hpp"
#include "gui/theme.hpp"

namespace attnlab::gui {

void draw_lesson_panel(AppState& state, Services& services) {
  (void)services;
  const Scenario& s = state.doc.scenario;
  ImGui::PushStyleColor(ImGuiCol_Text, palette(state).accent);
  ImGui::TextWrapped("%s", s.title.empty() ? "Untitled scenario" : s.title.c_str());
  ImGui::PopStyleColor();
  if (!s.description.empty()) ImGui::TextWrapped("%s", s.description.c_str());
}

}  // namespace attnlab::gui
