// The "Lesson view" window: the walk-through while it runs, else the special view of the open lesson,
// else a pointer to the lessons that have one.
#include "gui/lessons/lesson_views.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/shell/panel_registry.hpp"
#include "gui/shell/theme.hpp"
#include "gui/state/result_caches.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {

void sync_lesson_ui(AppState& state) {
  const Scenario& s = state.doc.scenario;
  const std::string key = s.title + "\n" + s.lesson.raw_json;
  LessonUi& ui = state.lesson;
  if (ui.loaded_key == key) return;
  ui.loaded_key = key;
  ui.heads = static_cast<int>(s.lesson.heads);
  ui.seed = static_cast<int>(s.lesson.seed);
  ui.share = s.lesson.share_projections;
  ui.weights_edited = false;
  ui.weights_key.clear();
  ui.edit_head = 0;
  ui.tau = 1.0;
  ui.playing = false;
  ui.play_time = 0;
  ui.frames_status.clear();
  ui.drag_kind.reset();
  ui.plane_half = 0;
}

std::vector<std::string> lesson_dim_labels(const char* prefix, Eigen::Index count) {
  std::vector<std::string> out;
  for (Eigen::Index c = 0; c < count; ++c) out.push_back(prefix + std::to_string(c + 1));
  return out;
}

float lesson_matrix_max_cell() { return ImGui::GetFontSize() * 4.5f; }

DrawnRect draw_lesson_matrix(AppState& state, Services& services, const char* id, const std::string& title,
                             Stage stage, const Matrix& M, const BlockGrid* blocked,
                             const std::vector<std::string>& rows, const std::vector<std::string>& cols, ImVec2 size,
                             bool fixed_unit_range) {
  const Palette pal = palette(state);
  ImGui::PushID(id);
  // The title wraps inside the matrix's width (between words): side-by-side matrices with long
  // titles overlapped one another at presenter sizes.
  const float title_top = ImGui::GetCursorScreenPos().y;
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(size.x, 40.0f));
  text_wrapped_unformatted(title);
  ImGui::PopTextWrapPos();
  ImGui::PopStyleColor();
  const float title_h = ImGui::GetCursorScreenPos().y - title_top;
  DrawnRect out;
  // Blocked cells (−∞ logits) are hatched by the widget; only the visible ones must be finite.
  const BlockGrid* grid = blocked && blocked->rows() == M.rows() && blocked->cols() == M.cols() ? blocked : nullptr;
  Matrix shown = M;
  if (grid) {
    for (Eigen::Index i = 0; i < shown.rows(); ++i)
      for (Eigen::Index j = 0; j < shown.cols(); ++j)
        if ((*grid)(i, j)) shown(i, j) = 0.0f;
  }
  if (shown.size() > kMaxImmediateCells || !shown.allFinite()) {
    ImGui::TextDisabled(shown.allFinite() ? "(too large to draw here: see the Pipeline)" : "(has inf or NaN cells)");
    ImGui::PopID();
    return out;
  }
  HeatmapSpec spec;
  spec.id = id;
  spec.stage = stage;
  spec.values = &shown;
  spec.blocked = grid;
  spec.row_labels = rows;
  spec.col_labels = cols;
  spec.map = &stage_colormap(state, stage);
  spec.diverging = stage_is_signed(stage) && !fixed_unit_range;
  if (fixed_unit_range || stage == Stage::Weights) {
    spec.lo = 0;
    spec.hi = 1;
  } else {
    std::tie(spec.lo, spec.hi) = finite_range(shown, spec.blocked);
    if (spec.diverging) {
      const double a = std::max(std::abs(spec.lo), std::abs(spec.hi));
      spec.lo = -a;
      spec.hi = a > 0 ? a : 1;
    }
  }
  spec.size = ImVec2(std::max(size.x, 40.0f), std::max(size.y - title_h, 30.0f));
  spec.max_cell = lesson_matrix_max_cell();
  spec.blocked_text = stage == Stage::Logits ? (services.fonts.unicode ? "−∞" : "-inf") : nullptr;
  draw_heatmap(state, services, spec);
  out = state.drawn[static_cast<size_t>(stage)];
  ImGui::PopID();
  return out;
}

void lesson_numbers_line(const char* label, const std::vector<double>& values, int decimals) {
  std::string line = label;
  char buf[32];
  for (const double v : values) {
    std::snprintf(buf, sizeof buf, "  %.*f", decimals, v);
    line += buf;
  }
  ImGui::TextUnformatted(line.c_str());
}

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
  if (!state.has_result) {
    text_wrapped("Nothing computed yet.");
    return;
  }
  if (!state.result.dense) {
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
  switch (state.doc.scenario.lesson.view) {
    case LessonView::WorkedExample: draw_worked_example_view(state, services); return;
    case LessonView::CompareScaling: draw_compare_scaling_view(state, services); return;
    case LessonView::ScalingLab: draw_scaling_lab_view(state, services); return;
    case LessonView::MultiHead: draw_multihead_view(state, services); return;
    case LessonView::SelfCross: draw_self_cross_view(state, services); return;
    case LessonView::MaskFamily: draw_mask_family_view(state, services); return;
    case LessonView::Temperature: draw_temperature_view(state, services); return;
    case LessonView::Normalizers: draw_normalizers_view(state, services); return;
    case LessonView::Precision: draw_precision_view(state, services); return;
    case LessonView::Geometry: draw_geometry_view(state, services); return;
    case LessonView::Cost: draw_cost_view(state, services); return;
    case LessonView::Plain: break;
  }
  text_wrapped("This scenario has no special view. Press the button below (or Space after it) to walk through "
                     "the pipeline one step at a time, or open a lesson from the Lessons menu: multi-head attention, "
                     "temperature, normalizers, precision, geometry and cost each have a view of their own here.");
  if (ImGui::Button("Walk through step by step")) walk_start(state);
}

}  // namespace attnlab::gui
