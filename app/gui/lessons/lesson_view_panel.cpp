// The "Lesson view" window: the walk-through while it runs, else the page of the lesson shown, else
// a pointer to the lessons that have one.
#include "gui/lessons/lesson_view_panel.hpp"

#include "gui/lessons/exercise_tab.hpp"
#include "gui/lessons/lesson_numbers.hpp"
#include "gui/lessons/lesson_page.hpp"
#include "gui/lessons/look_at_band.hpp"
#include "gui/lessons/train_induction_page.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/lessons/walkthrough_view.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>

namespace attnlab::gui {

namespace {

// The views need room: when the window appears it covers the area right of the inputs column, and
// presenter mode gives it the whole work area, menu bar to status bar (at 1280×720 with
// projector-size text nothing less holds a lesson). Returns false in the frame it was placed.
bool place_lesson_view(LessonsUi& ui, bool presenter) {
  // (ImGuiCond_Appearing would be ignored: the host's first-use size already consumed it.)
  if (!ImGui::IsWindowAppearing() && ui.placed_for_presenter == presenter) return true;
  ui.placed_for_presenter = presenter;
  const ImGuiViewport* vp = ImGui::GetMainViewport();
  const float fs = ImGui::GetFontSize();
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
  return false;
}

// The page of the lesson shown (or the way into the walk-through where it has none).
void draw_lesson_page(const ViewContext& ctx, LessonsUi& ui, const ModelUi& model, const TrainingUi& training, CellRef selected,
                      Commands& out) {
  if (ui.page) {
    std::string error;
    const LessonNumbers* numbers = lesson_numbers_any(ui.numbers, ctx, error);
    ui.page->draw(PageInputs{ctx, model, training, selected, error}, numbers, out);
    return;
  }
  text_wrapped("This scenario has no special view. Press the button below (or Space after it) to walk through "
               "the pipeline one step at a time, or open a lesson from the Lessons menu: multi-head attention, "
               "temperature, normalizers, precision, geometry, cost and the online softmax each have a view of their own here.");
  if (ImGui::Button("Walk through step by step")) {
    for (Command& c : walk_start(ui.walk)) out.push_back(std::move(c));
  }
  if (!ui.exercise.lesson.empty()) {
    ImGui::SameLine();
    if (ImGui::Button("Exercise")) ui.exercise.shown = true;
  }
}

}  // namespace

bool induction_lesson_shown(const LessonsUi& lessons) { return dynamic_cast<const PageState<TrainInductionUi>*>(lessons.page.get()); }

void draw_lesson_view_panel(const ViewContext& ctx, LessonsUi& ui, const ModelUi& model, const TrainingUi& training, CellRef selected,
                            const ExerciseProgress& exercises, Commands& out) {
  // The page of the shown result's lesson (the document may be a step ahead).
  sync_lesson_page(ui, ctx.shown(), training);
  sync_exercise(ui.exercise, ctx.shown(), exercises);
  const bool placed = place_lesson_view(ui, ctx.view.presenter);
  handle_walk_keys(ui.walk);
  if (!placed) return;
  if (!ctx.results.has_result) {
    text_wrapped("Nothing computed yet.");
    return;
  }
  if (!ctx.results.result.dense) {
    text_wrapped("This document is streamed (its n %s m stages are never stored), and the lesson views and the "
                 "walk-through show every cell. Undo the resize or open a lesson to use them; the pipeline shows "
                 "the streamed result.",
                 ctx.services.glyphs.times);
    return;
  }
  if (ui.walk.active) {
    draw_walkthrough_view(MapCanvas{ctx, selected, out}, ui.walk);
    return;
  }
  // The lesson's exercise where it was asked for (the Lesson tab's Exercise button), else its page:
  // the pages keep the whole window, which a projector's 1280 × 720 needs.
  if (ui.exercise.shown && !ui.exercise.lesson.empty()) {
    draw_exercise_tab(MapCanvas{ctx, selected, out}, exercises, ui.exercise);
    return;
  }
  // On a projector the lesson's "look at" text stays in sight under its page (issue 69), the page
  // in what the band leaves.
  const float band = ui.page && !ui.page->tells_its_steps ? look_at_band_height(ctx, ui) : 0.0f;
  if (band <= 0) {
    draw_lesson_page(ctx, ui, model, training, selected, out);
    return;
  }
  ImGui::BeginChild("##page", ImVec2(0, std::max(ImGui::GetFontSize(), ImGui::GetContentRegionAvail().y - band)));
  draw_lesson_page(ctx, ui, model, training, selected, out);
  ImGui::EndChild();
  draw_look_at_band(ctx, ui);
}

}  // namespace attnlab::gui
