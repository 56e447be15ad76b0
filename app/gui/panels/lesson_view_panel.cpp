// The "Lesson view" window: the walk-through while it runs, else the special view of the open lesson,
// else a pointer to the lessons that have one.
#include "gui/lessons/lesson_views.hpp"
#include "gui/state/walkthrough_steps.hpp"
#include "gui/panels/panels.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {

void draw_lesson_view_panel(AppState& state, Services& services) {
  sync_lesson_ui(state);
  // The views need room: when the window appears it covers the area right of the inputs column.
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float fs = ImGui::GetFontSize();
  // (ImGuiCond_Appearing would be ignored: the host's first-use size already consumed it.)
  // Presenter mode gives the view the whole work area, menu bar to status bar: at 1280×720 with
  // projector-size text nothing less holds a lesson.
  const bool presenter = state.view.presenter;
  if (ImGui::IsWindowAppearing() || state.lesson.placed_for_presenter != presenter) {
    state.lesson.placed_for_presenter = presenter;
    const float top = fs + ImGui::GetStyle().FramePadding.y * 2, bottom = fs + 8;
    if (presenter) {
      ImGui::SetWindowPos(ImVec2(vp->Pos.x, vp->Pos.y + top), ImGuiCond_Always);
      ImGui::SetWindowSize(ImVec2(vp->Size.x, vp->Size.y - top - bottom), ImGuiCond_Always);
    } else {
      ImGui::SetWindowPos(ImVec2(vp->Pos.x + vp->Size.x * 0.27f, vp->Pos.y + fs * 2.2f), ImGuiCond_Always);
      ImGui::SetWindowSize(ImVec2(vp->Size.x * 0.72f, vp->Size.y - fs * 4.4f), ImGuiCond_Always);
    }
    // This frame's content region is still the old size's (the first-use size when the window
    // appears): a view laid out in it overflowed the new size and showed a scroll bar for a frame.
    // The next frame draws at the new size.
    handle_walk_keys(state);
    return;
  }
  handle_walk_keys(state);
  if (!state.results.has_result) {
    text_wrapped("Nothing computed yet.");
    return;
  }
  if (!state.results.result.dense) {
    text_wrapped("This document is streamed (its n %s m stages are never stored), and the lesson views and the "
                       "walk-through show every cell. Undo the resize or open a lesson to use them; the pipeline shows "
                       "the streamed result.",
                       services.glyphs.times);
    return;
  }
  if (state.lesson.walk.active) {
    draw_walkthrough_view(state, services);
    return;
  }
  // The induction lesson lifts heads into the document and goes on with them there.
  if (induction_lesson_shown(state)) {
    draw_train_induction_view(state, services);
    return;
  }
  state.lesson.induction_active = false;  // another document: the lesson starts over when opened again
  // The shown result's lesson: its numbers are what the view draws (the document may be a step ahead).
  if (const LessonViewFn draw = lesson_view_drawer(lesson_view(shown_scenario(state).lesson))) {
    draw(state, services);
    return;
  }
  text_wrapped("This scenario has no special view. Press the button below (or Space after it) to walk through "
                     "the pipeline one step at a time, or open a lesson from the Lessons menu: multi-head attention, "
                     "temperature, normalizers, precision, geometry, cost and the online softmax each have a view of their own here.");
  if (ImGui::Button("Walk through step by step")) walk_start(state);
}

}  // namespace attnlab::gui
