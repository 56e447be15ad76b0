// The lesson in view: its title, its text (goal, what to look at, what to try, source; or the
// scenario's description when it has none), the way into its special view and the walk-through,
// and the previous/next lesson.
#include "gui/lessons/lesson_panel.hpp"

#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/lessons/worked_example.hpp"
#include "gui/base/theme.hpp"
#include "gui/lessons/lesson_text_view.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

namespace attnlab::gui {

namespace {

// ATTNLAB_GUI_EXERCISE=SEED opens the Exercise tab at that seed, and ATTNLAB_GUI_EXERCISE_ANSWERS=FILE
// (an answer file of `attnlab exercise --answer`) fills its fields and checks them: for screenshots,
// docs and tests of the tab.
void exercise_from_environment(ExerciseUi& exercise, Commands& out) {
  const char* seed = std::getenv("ATTNLAB_GUI_EXERCISE");
  if (!seed) return;
  exercise.open_seed = std::strtoull(seed, nullptr, 10);
  exercise.shown = true;
  out.push_back(ShowWindow{"Lesson view"});
  if (const char* answers = std::getenv("ATTNLAB_GUI_EXERCISE_ANSWERS")) {
    std::ifstream in(answers);
    exercise.pending_answers.assign(std::istreambuf_iterator<char>(in), {});
    if (exercise.pending_answers.empty()) out.push_back(SayError{std::string("ATTNLAB_GUI_EXERCISE_ANSWERS: cannot read ") + answers});
  }
}

// The built-in lesson the document came from (matched by title), or −1.
int current_lesson(const Scenario& doc, const std::vector<PresetInfo>& presets) {
  for (size_t k = 0; k < presets.size(); ++k)
    if (presets[k].title == doc.title) return static_cast<int>(k);
  return -1;
}


}  // namespace

void draw_lesson_panel(const ViewContext& ctx, LessonsUi& ui, Commands& out) {
  const Scenario& s = ctx.doc.scenario;
  // A newly opened lesson with a view of its own opens on it. The worked examples stay on the
  // pipeline, which is their view.
  const std::string key = s.title + "\n" + s.lesson.raw_json;
  if (ui.shown_key != key) {
    ui.shown_key = key;
    if (lesson_view(s.lesson) != kPlainView && lesson_view(s.lesson) != kWorkedExampleView) out.push_back(ShowWindow{"Lesson view"});
  }
  // ATTNLAB_GUI_WALK=STEP starts the walk-through at that step (1-based), for screenshots and docs.
  if (!ui.env_checked) {
    ui.env_checked = true;
    if (const char* walk = std::getenv("ATTNLAB_GUI_WALK")) {
      for (Command& c : walk_start(ui.walk)) out.push_back(std::move(c));
      ui.walk.step = std::clamp(std::atoi(walk) - 1, 0, kWalkSteps - 1);
    }
    exercise_from_environment(ui.exercise, out);
  }
  const auto presets = list_presets();
  const int here = current_lesson(s, presets);
  const float top = ImGui::GetCursorPosY();
  // Title and place in the course on one line, then the text, goal first; the buttons come last:
  // at projector size on a 720-pixel screen the tab may show only the first few lines.
  ImGui::PushStyleColor(ImGuiCol_Text, palette(ctx.view).accent);
  text_wrapped("%s", s.title.empty() ? "Untitled scenario" : s.title.c_str());
  ImGui::PopStyleColor();
  if (here >= 0) {
    char place[32];
    std::snprintf(place, sizeof place, "lesson %d of %d", here + 1, static_cast<int>(presets.size()));
    same_line_if_fits(ImGui::CalcTextSize(place).x);
    ImGui::TextDisabled("%s", place);
    // The lesson's exercise, on the first line where it is seen without scrolling the lesson's text.
    same_line_if_fits(ImGui::CalcTextSize("Exercise").x + ImGui::GetFontSize());
    if (ImGui::SmallButton("Exercise")) {
      ui.exercise.shown = true;
      out.push_back(ShowWindow{"Lesson view"});
    }
  }
  ImGui::Spacing();
  if (s.lesson.text.present()) draw_lesson_text(ctx, ui, out);
  else if (!s.description.empty()) text_wrapped("%s", s.description.c_str());
  ImGui::Spacing();
  const std::string_view view = lesson_view(s.lesson);
  if (view != kPlainView && ImGui::Button("Open the lesson view")) out.push_back(ShowWindow{"Lesson view"});
  if (view != kPlainView) same_line_if_fits(ImGui::CalcTextSize("Leave the walk-through").x + ImGui::GetFontSize());
  if (!ui.walk.active) {
    if (ImGui::Button("Walk through")) {
      for (Command& c : walk_start(ui.walk)) out.push_back(std::move(c));
    }
  } else if (ImGui::Button("Leave the walk-through")) {
    walk_stop(ui.walk);
  }
  if (here >= 0) {
    const char* back = ctx.services.fonts.unicode ? "← previous" : "< previous";
    const char* next = ctx.services.fonts.unicode ? "next lesson →" : "next lesson >";
    if (here > 0) {
      same_line_if_fits(ImGui::CalcTextSize(back).x + ImGui::GetFontSize());
      if (ImGui::Button(back)) out.push_back(LoadPreset{presets[static_cast<size_t>(here - 1)].name});
    }
    if (here + 1 < static_cast<int>(presets.size())) {
      same_line_if_fits(ImGui::CalcTextSize(next).x + ImGui::GetFontSize());
      if (ImGui::Button(next)) out.push_back(LoadPreset{presets[static_cast<size_t>(here + 1)].name});
    }
  }
  // The height this text needs, for the host's layout next frame (the tabs grow to show it all
  // where the pipeline can spare the room).
  ui.panel_needs_height = ImGui::GetCursorPosY() - top + ImGui::GetStyle().WindowPadding.y;
  ui.panel_drawn_frame = ImGui::GetFrameCount();
}

}  // namespace attnlab::gui
