// The classroom walk-through, drawn: the step's inputs on the left, what it produced on the right
// with the cells that changed outlined, the formula with today's numbers above. Works at 1280×720
// in presenter mode.
#include "gui/lessons/walkthrough_view.hpp"

#include "gui/base/theme.hpp"
#include "gui/lessons/walkthrough_steps.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <GLFW/glfw3.h>

#include <algorithm>
#include <cfloat>

namespace attnlab::gui {

namespace {

void outline_changed(const DrawnRect& d, const BlockGrid& changed, ImU32 color) {
  if (!d.drawn || d.rows <= 0 || d.cols <= 0 || changed.rows() != d.rows || changed.cols() != d.cols) return;
  const float cw = (d.x1 - d.x0) / static_cast<float>(d.cols), ch = (d.y1 - d.y0) / static_cast<float>(d.rows);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float t = std::clamp(std::min(cw, ch) * 0.08f, 2.0f, 4.0f);
  for (int i = 0; i < d.rows; ++i) {
    for (int j = 0; j < d.cols; ++j) {
      if (!changed(i, j)) continue;
      const ImVec2 a(d.x0 + static_cast<float>(j) * cw + t * 0.5f, d.y0 + static_cast<float>(i) * ch + t * 0.5f);
      dl->AddRect(a, ImVec2(a.x + cw - t, a.y + ch - t), color, 0, 0, t);
    }
  }
}

// The cell size draw_lesson_matrix gives `m` in a box w × h (title, column labels and row labels
// taken out), near enough to choose between layouts.
float cell_in(const WalkMatrix& m, float w, float h) {
  const float fs = ImGui::GetFontSize();
  const float rows = static_cast<float>(std::max<Eigen::Index>(m.values.rows(), 1));
  const float cols = static_cast<float>(std::max<Eigen::Index>(m.values.cols(), 1));
  const float row_labels = std::min(heatmap_row_label_width(m.row_labels, static_cast<int>(m.values.rows())), w * 0.3f);
  const float c = std::min((w - row_labels) / cols, (h - ImGui::GetTextLineHeightWithSpacing() - fs * 1.3f) / rows);
  return std::min(c, lesson_matrix_max_cell());
}

// The width `m` and its title need at height h: its cells are as large as the height allows.
float width_at(const WalkMatrix& m, const std::string& title, float h) {
  const float fs = ImGui::GetFontSize();
  const float grid = heatmap_row_label_width(m.row_labels, static_cast<int>(m.values.rows())) +
                     cell_in(m, FLT_MAX, h) * static_cast<float>(m.values.cols());
  return std::max(grid, ImGui::CalcTextSize(title.c_str()).x) + fs * 0.5f;
}

// Back, Next and Leave, the steps with the current one lit (each a click away), the step's title,
// formula and what it does.
void draw_walk_header(WalkthroughUi& walk, const Services& services, const WalkFrame& f, const Palette& pal) {
  // Navigation first, so the buttons stay put whatever the text below does.
  if (ImGui::Button(services.fonts.unicode ? "← Back" : "< Back")) walk_back(walk);
  ImGui::SameLine();
  if (ImGui::Button(services.fonts.unicode ? "Next →" : "Next >")) walk_forward(walk);
  ImGui::SameLine();
  if (ImGui::Button("Leave")) walk_stop(walk);
  // The steps flow on after the buttons and onto the next line when the window is narrow
  // (presenter mode at 1280×720): nothing runs past the right edge.
  const float right_edge = ImGui::GetWindowContentRegionMax().x;
  const auto flow = [](const char* text) { same_line_if_fits(ImGui::CalcTextSize(text).x); };
  for (int k = 0; k < kWalkSteps; ++k) {
    const bool here = k == f.step;
    flow(walk_step_name(k));
    ImGui::PushStyleColor(ImGuiCol_Text, here ? pal.accent : pal.text_dim);
    ImGui::TextUnformatted(walk_step_name(k));
    ImGui::PopStyleColor();
    if (ImGui::IsItemClicked()) walk.step = k;
    if (k + 1 < kWalkSteps) {
      flow(services.glyphs.arrow);
      ImGui::TextDisabled("%s", services.glyphs.arrow);
    }
  }
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::TextUnformatted(f.title.c_str());
  ImGui::PopStyleColor();
  flow(f.formula.c_str());
  if (ImGui::GetCursorPosX() + ImGui::CalcTextSize(f.formula.c_str()).x > right_edge) {
    text_wrapped_unformatted(f.formula);  // long even on a line of its own: wrap between terms
  } else {
    ImGui::TextUnformatted(f.formula.c_str());
  }
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped("%s  (Space, %s or PageDown: next; %s: back; Esc: leave)", f.what.c_str(), services.glyphs.arrow,
               services.fonts.unicode ? "←" : "Left");
  ImGui::PopStyleColor();
}

// The step's inputs in `left_w` × `h` at `top` (one above the other or side by side, whichever gives
// the smaller one larger cells), and the arrow to the result. Each input's map is added to `listed`.
void draw_walk_inputs(const MapCanvas& canvas, std::vector<DrawnRect>& listed, const WalkFrame& f, ImVec2 top, float left_w, float h,
                      float gap, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  const float count = static_cast<float>(f.before.size());
  const float stacked_h = (h - fs * 0.5f * (count - 1)) / count, beside_w = (left_w - gap * (count - 1)) / count;
  float stacked = 1e9f, beside = 1e9f;
  for (const WalkMatrix& m : f.before) {
    stacked = std::min(stacked, cell_in(m, left_w, stacked_h));
    beside = std::min(beside, cell_in(m, beside_w, h));
  }
  const bool side_by_side = f.before.size() > 1 && beside > stacked;
  const ImVec2 each = side_by_side ? ImVec2(beside_w, h) : ImVec2(left_w, stacked_h);
  for (size_t k = 0; k < f.before.size(); ++k) {
    const WalkMatrix& m = f.before[k];
    const float step = static_cast<float>(k);
    ImGui::SetCursorScreenPos(side_by_side ? ImVec2(top.x + step * (each.x + gap), top.y)
                                           : ImVec2(top.x, top.y + step * (each.y + fs * 0.5f)));
    ImGui::BeginGroup();
    listed.push_back(draw_lesson_matrix(canvas, ("before" + std::to_string(k)).c_str(), m.name, m.stage, m.values,
                                        m.blocked.size() ? &m.blocked : nullptr, m.row_labels, m.col_labels, each));
    ImGui::EndGroup();
  }
  const char* arrow = canvas.ctx.services.glyphs.arrow;
  const ImVec2 as = ImGui::CalcTextSize(arrow);
  ImGui::GetWindowDrawList()->AddText(ImVec2(top.x + left_w + (gap - as.x) * 0.5f, top.y + h * 0.5f - as.y * 0.5f),
                                      pal.accent, arrow);
}

}  // namespace

void draw_walkthrough_view(const MapCanvas& canvas, WalkthroughUi& walk) {
  const ViewContext& ctx = canvas.ctx;
  const Palette pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  const WalkFrame f = walk_frame(ctx.shown(), ctx.results.result, walk.step, ctx.services.glyphs);
  draw_walk_header(walk, ctx.services, f, pal);

  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float gap = fs * 2.0f;
  const bool has_before = !f.before.empty();
  const float h = std::max(60.0f, avail.y - fs * 0.5f);
  const std::string title = f.now.name + "   (" + std::to_string(f.changed_count) + " cells changed)";
  // The result is as large as the height allows; the step's inputs get the rest of the width (at
  // least 38%): at 1280×720 in presenter mode a fixed 38% drew Q and K one above the other with
  // cells too small for their numbers, beside an empty half of the result's column.
  float left_w = has_before ? avail.x * 0.38f : 0.0f;
  if (has_before && f.also.empty()) {
    left_w = std::max(left_w, avail.x - gap - std::max(width_at(f.now, title, h), avail.x * 0.25f));
  }
  const float right_w = avail.x - left_w - (has_before ? gap : 0.0f);

  std::vector<DrawnRect> listed;
  if (has_before) draw_walk_inputs(canvas, listed, f, top, left_w, h, gap, pal);
  canvas.out.push_back(LessonMapsListed{std::move(listed)});
  const float rx = top.x + (has_before ? left_w + gap : 0.0f);
  const size_t shown = 1 + f.also.size();
  const float each_w = (right_w - gap * static_cast<float>(shown - 1)) / static_cast<float>(shown);
  ImGui::SetCursorScreenPos(ImVec2(rx, top.y));
  ImGui::BeginGroup();
  const DrawnRect d = draw_lesson_matrix(canvas, "now", title, f.now.stage, f.now.values, f.now.blocked.size() ? &f.now.blocked : nullptr,
                                         f.now.row_labels, f.now.col_labels, ImVec2(each_w, h));
  ImGui::EndGroup();
  outline_changed(d, f.changed, pal.accent);
  for (size_t k = 0; k < f.also.size(); ++k) {
    ImGui::SetCursorScreenPos(ImVec2(rx + static_cast<float>(k + 1) * (each_w + gap), top.y));
    ImGui::BeginGroup();
    const WalkMatrix& m = f.also[k];
    draw_lesson_matrix(canvas, ("also" + std::to_string(k)).c_str(), m.name, m.stage, m.values, nullptr, m.row_labels, m.col_labels,
                       ImVec2(each_w, h));
    ImGui::EndGroup();
  }
  ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + h));
  ImGui::Dummy(ImVec2(1, 1));
}

void handle_walk_keys(WalkthroughUi& walk) {
  if (!walk.active || ImGui::GetIO().WantTextInput) return;
  auto pressed = [](int key) { return ImGui::IsKeyPressed(key, true); };
  if (pressed(GLFW_KEY_SPACE) || pressed(GLFW_KEY_RIGHT) || pressed(GLFW_KEY_PAGE_DOWN)) walk_forward(walk);
  if (pressed(GLFW_KEY_LEFT) || pressed(GLFW_KEY_PAGE_UP) || pressed(GLFW_KEY_BACKSPACE)) walk_back(walk);
  if (pressed(GLFW_KEY_ESCAPE)) walk_stop(walk);
}

}  // namespace attnlab::gui
