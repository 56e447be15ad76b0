// The lesson in view: its title, what to look at and what to try (the scenario's description),
// the way into its special view and the walk-through, and the previous/next lesson.
#include "engine/lessons/presets.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/panels/panels.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/shell/theme.hpp"
#include "gui/state/edits.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdlib>

namespace attnlab::gui {

namespace {

// The built-in lesson the document came from (matched by title), or −1.
int current_lesson(const AppState& state, const std::vector<PresetInfo>& presets) {
  for (size_t k = 0; k < presets.size(); ++k)
    if (presets[k].title == state.doc.scenario.title) return static_cast<int>(k);
  return -1;
}

}  // namespace

void draw_lesson_panel(AppState& state, Services& services) {
  const Scenario& s = state.doc.scenario;
  // A newly opened lesson with a view of its own opens on it. The worked examples stay on the
  // pipeline, which is their view.
  const std::string key = s.title + "\n" + s.lesson.raw_json;
  if (state.lesson.shown_key != key) {
    state.lesson.shown_key = key;
    if (s.lesson.view != LessonView::Plain && s.lesson.view != LessonView::WorkedExample) window_open(state, "Lesson view") = true;
  }
  // ATTNLAB_GUI_WALK=STEP starts the walk-through at that step (1-based), for screenshots and docs.
  if (!state.lesson.env_checked) {
    state.lesson.env_checked = true;
    if (const char* walk = std::getenv("ATTNLAB_GUI_WALK")) {
      walk_start(state);
      state.lesson.walk.step = std::clamp(std::atoi(walk) - 1, 0, kWalkSteps - 1);
    }
  }
  const auto presets = list_presets();
  const int here = current_lesson(state, presets);
  ImGui::PushStyleColor(ImGuiCol_Text, palette(state).accent);
  text_wrapped("%s", s.title.empty() ? "Untitled scenario" : s.title.c_str());
  ImGui::PopStyleColor();
  if (here >= 0) ImGui::TextDisabled("lesson %d of %d", here + 1, static_cast<int>(presets.size()));
  if (!s.description.empty()) text_wrapped("%s", s.description.c_str());
  if (s.lesson.view != LessonView::Plain && ImGui::Button("Open the lesson view")) window_open(state, "Lesson view") = true;
  if (s.lesson.view != LessonView::Plain) ImGui::SameLine();
  if (!state.lesson.walk.active) {
    if (ImGui::Button("Walk through")) walk_start(state);
  } else if (ImGui::Button("Leave the walk-through")) {
    walk_stop(state);
  }
  if (here >= 0) {
    const char* back = services.fonts.unicode ? "← previous" : "< previous";
    const char* next = services.fonts.unicode ? "next lesson →" : "next lesson >";
    if (here > 0) {
      if (ImGui::Button(back)) actions::load_preset(state, presets[static_cast<size_t>(here - 1)].name);
      ImGui::SameLine();
    }
    if (here + 1 < static_cast<int>(presets.size()) && ImGui::Button(next)) {
      actions::load_preset(state, presets[static_cast<size_t>(here + 1)].name);
    }
  }
}

}  // namespace attnlab::gui
