// One small matrix under its title, and the lines of numbers beside it (see lesson_matrix.hpp).
#include "gui/lessons/lesson_matrix.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/result_caches.hpp"
#include "gui/state/view_style.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

namespace attnlab::gui {

std::vector<std::string> lesson_dim_labels(const char* prefix, Eigen::Index count) {
  std::vector<std::string> out;
  for (Eigen::Index c = 0; c < count; ++c) out.push_back(prefix + std::to_string(c + 1));
  return out;
}

float lesson_matrix_max_cell() { return ImGui::GetFontSize() * 4.5f; }

DrawnRect draw_lesson_matrix(const MapCanvas& canvas, const char* id, const std::string& title, Stage stage, const Matrix& M,
                             const BlockGrid* blocked, const std::vector<std::string>& rows,
                             const std::vector<std::string>& cols, ImVec2 size, bool fixed_unit_range) {
  const ViewContext& ctx = canvas.ctx;
  const Palette pal = palette(ctx.view);
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
  spec.map = &stage_colormap(ctx.view, stage);
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
  spec.blocked_text = stage == Stage::Logits ? minus_infinity(ctx.services.fonts.unicode) : nullptr;
  const HeatmapEvents ev = draw_heatmap(spec, heatmap_style(ctx, canvas.selected));
  canvas.out.push_back(MapDrawn{stage, ev.drawn});
  if (ev.menu != HeatmapMenu::None) canvas.out.push_back(StageMenu{stage, ev.menu});
  out = ev.drawn;
  ImGui::PopID();
  return out;
}

void lesson_numbers_line(const char* label, const std::vector<double>& values, int decimals) {
  std::string line = label;
  for (const double v : values) line += "  " + fixed_decimals(v, decimals);
  ImGui::TextUnformatted(line.c_str());
}

// One row of token chips after a label: each token framed, in the warning colour where it differs
// from `truth` (when given), the one at `mark` outlined in the accent colour.
void lesson_token_row(const char* label, float label_w, const std::vector<int>& ids, const std::vector<int>* truth, int mark, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  ImGui::TextUnformatted(label);
  ImGui::SameLine(label_w);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 at = ImGui::GetCursorScreenPos();
  const float x0 = at.x;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string t = std::to_string(ids[i]);
    const float w = ImGui::CalcTextSize(t.c_str()).x + fs * 0.5f;
    const bool wrong = truth && i < truth->size() && (*truth)[i] != ids[i];
    dl->AddRectFilled(at, ImVec2(at.x + w, at.y + fs * 1.2f), ImGui::GetColorU32(ImGuiCol_FrameBg), 3.0f);
    if (static_cast<int>(i) == mark) dl->AddRect(at, ImVec2(at.x + w, at.y + fs * 1.2f), pal.accent, 3.0f, 0, 2.0f);
    dl->AddText(ImVec2(at.x + fs * 0.25f, at.y + fs * 0.1f), wrong ? pal.warning : pal.text, t.c_str());
    at.x += w + fs * 0.2f;
  }
  ImGui::Dummy(ImVec2(std::max(1.0f, at.x - x0), fs * 1.25f));
}

float lesson_label_width(std::initializer_list<const char*> labels) {
  float w = 0;
  for (const char* l : labels) w = std::max(w, ImGui::CalcTextSize(l).x);
  return ImGui::GetCursorPosX() + w + ImGui::GetFontSize() * 0.6f;
}

}  // namespace attnlab::gui
