// Scaled vs unscaled: the same scenario computed with and without ÷√d_k, in two columns.
#include "gui/lessons/compare_scaling_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {

void draw_compare_scaling_page(const PageInputs& in, const CompareScalingNumbers* numbers, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const MapCanvas canvas = in.canvas(out);
  const Glyphs& g = in.ctx.services.glyphs;
  const Scenario& s = in.ctx.shown();
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float col_w = (avail.x - fs * 2) * 0.5f;
  const auto ql = display_tokens(s.query_tokens, s.Q.rows()), kl = display_tokens(s.key_tokens, s.K.rows());
  for (int k = 0; k < 2; ++k) {
    const bool scale = k == 0;
    const LessonVariant& v = scale ? numbers->scaled : numbers->unscaled;
    if (!v.ok()) {
      error_text(palette(in.ctx.view).error, v.error);
      return;
    }
    const Result& r = v.result;
    const BlockGrid& blocked = v.blocked;
    ImGui::SetCursorScreenPos(ImVec2(top.x + static_cast<float>(k) * (col_w + fs * 2), top.y));
    ImGui::BeginGroup();
    const std::string root = std::string(g.sqrt) + std::to_string(static_cast<long long>(r.d_k));
    const std::string head = scale ? "scaled: logits = scores " + std::string(g.divide) + " " + root + " = scores " + g.divide + " " +
                                         fixed_decimals(r.scale_divisor, 3)
                                   : "unscaled: logits = scores (" + std::string(g.divide) + root + " left out)";
    ImGui::PushStyleColor(ImGuiCol_Text, palette(in.ctx.view).accent);
    ImGui::TextUnformatted(head.c_str());
    ImGui::PopStyleColor();
    // Logits over weights, or side by side when that gives bigger cells (wide windows, presenter
    // mode on a 16:9 projector).
    const float rows_h = avail.y - fs * 5.0f;
    const float n = static_cast<float>(r.n), m = static_cast<float>(r.m);
    const float stacked = std::min(col_w / m, rows_h * 0.5f / n);
    const float side_w = (col_w - fs) * 0.5f;
    const float side = std::min(side_w / m, rows_h / n);
    const bool beside = side > stacked * 1.1f;
    const ImVec2 each = beside ? ImVec2(side_w, rows_h) : ImVec2(col_w, rows_h * 0.5f);
    ImGui::BeginGroup();
    draw_lesson_matrix(canvas, scale ? "cs_l1" : "cs_l0", "logits", Stage::Logits, r.logits, &blocked, ql, kl, each);
    ImGui::EndGroup();
    if (beside) ImGui::SameLine(0, fs);
    ImGui::BeginGroup();
    draw_lesson_matrix(canvas, scale ? "cs_w1" : "cs_w0", "weights", Stage::Weights, r.weights, &blocked, ql, kl, each);
    ImGui::EndGroup();
    std::vector<double> mx, ent;
    for (const auto& d : r.rows) {
      mx.push_back(d.max_weight);
      ent.push_back(d.entropy);
    }
    lesson_numbers_line("max weight per row:", mx);
    lesson_numbers_line("entropy per row (nats):", ent);
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
