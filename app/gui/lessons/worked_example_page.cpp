// Worked examples (Section 2.3 and "13.2 Scaled dot-product attention"): one row of the weights
// done by hand, in the course texts' digits.
#include "gui/lessons/worked_example_page.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>

namespace attnlab::gui {

void draw_worked_example_page(const PageInputs& in, const WorkedExampleNumbers* numbers, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const Scenario& s = in.ctx.shown();
  const Result& r = in.ctx.results.result;
  const Palette pal = palette(in.ctx.view);
  const float fs = ImGui::GetFontSize();
  CellRef selected = in.selected;
  int row = selected.valid() ? std::clamp(selected.row, 0, static_cast<int>(r.n) - 1) : 0;
  if (ImGui::Button("Walk through step by step")) out.push_back(StartWalkthrough{});
  ImGui::SameLine();
  ImGui::TextDisabled("By hand, row:");
  for (int i = 0; i < static_cast<int>(r.n) && i < 12; ++i) {
    ImGui::SameLine();
    if (ImGui::RadioButton(std::to_string(i + 1).c_str(), row == i)) {
      row = i;
      selected = CellRef{Stage::Weights, i, 0};
      out.push_back(SelectCell{selected});
    }
  }
  // The maps outline the row chosen this frame.
  const MapCanvas canvas{in.ctx, selected, out};
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float map_w = std::min(avail.x * 0.34f, fs * 16.0f);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  ImGui::BeginGroup();
  const auto& keys = numbers->weight_lines[static_cast<size_t>(row)];
  // Window-local wrap position (PushTextWrapPos takes local x), and wrapping between words only:
  // a by-hand line must never break inside a number.
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + avail.x - map_w - fs);
  for (Eigen::Index j = 0; j < r.m && j < 12; ++j) {
    const auto& lines = keys[static_cast<size_t>(j)];
    text_wrapped_unformatted(lines[0]);
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped_unformatted(lines[1]);
    ImGui::PopStyleColor();
  }
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  if (keys[0].size() > 3) text_wrapped("%s", keys[0][2].c_str());
  for (Eigen::Index j = 0; j < r.m && j < 12; ++j) text_wrapped_unformatted(keys[static_cast<size_t>(j)].back());
  ImGui::PopStyleColor();
  for (const auto& line : numbers->output_lines[static_cast<size_t>(row)]) text_wrapped("%s", line.c_str());
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
  ImGui::SetCursorScreenPos(ImVec2(top.x + avail.x - map_w, top.y));
  ImGui::BeginGroup();
  const BlockGrid blocked = mask_grid(s.options.mask, r.n, r.m);
  draw_lesson_matrix(canvas, "we_weights", "weights", Stage::Weights, r.weights, &blocked,
                     display_tokens(s.query_tokens, r.n), display_tokens(s.key_tokens, r.m),
                     ImVec2(map_w, std::min(avail.y * 0.5f, map_w)));
  draw_lesson_matrix(canvas, "we_output", "output", Stage::Output, r.output, nullptr,
                     display_tokens(s.query_tokens, r.n), lesson_dim_labels("v", r.d_v),
                     ImVec2(map_w * 0.7f, std::min(avail.y * 0.45f, map_w)));
  ImGui::EndGroup();
}

}  // namespace attnlab::gui
