// Self- vs cross-attention (Section 2.3's table): the square score matrix of a sequence attending to
// itself beside the rectangular one of decoder queries attending to encoder keys.
#include "gui/lessons/self_cross_page.hpp"

#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

void draw_self_cross_page(const PageInputs& in, const SelfCrossNumbers* numbers, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const MapCanvas canvas = in.canvas(out);
  const Scenario& cross = in.ctx.shown();
  const Scenario& self = numbers->self_twin;
  const LessonVariant &vc = numbers->cross, &vs = numbers->self;
  if (!vc.ok() || !vs.ok()) {
    error_text(palette(in.ctx.view).error, (vc.ok() ? vs : vc).error);
    return;
  }
  const Result &rc = vc.result, &rs = vs.result;
  const float fs = ImGui::GetFontSize();
  // The heatmap's own spacing under the grid is part of the height: without it the view scrolled by
  // a few pixels at 1280 × 720 presenter.
  const ImVec2 avail(ImGui::GetContentRegionAvail().x, ImGui::GetContentRegionAvail().y - ImGui::GetStyle().ItemSpacing.y);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float w = (avail.x - fs * 2) * 0.5f;
  const char* x = in.ctx.services.glyphs.times;
  const std::string t1 = "self-attention: Q, K, V from one sequence, scores " + std::to_string(rs.n) + x +
                         std::to_string(rs.m) + " (square)";
  const std::string t2 = "cross-attention: decoder queries, encoder keys, scores " + std::to_string(rc.n) + x +
                         std::to_string(rc.m) + (rc.n == rc.m ? " (square here)" : " (rectangular)");
  ImGui::BeginGroup();
  draw_lesson_matrix(canvas, "self", t1, Stage::Weights, rs.weights, nullptr,
                     display_tokens(self.query_tokens, rs.n), display_tokens(self.key_tokens, rs.m), ImVec2(w, avail.y));
  ImGui::EndGroup();
  ImGui::SetCursorScreenPos(ImVec2(top.x + w + fs * 2, top.y));
  ImGui::BeginGroup();
  draw_lesson_matrix(canvas, "cross", t2, Stage::Weights, rc.weights, &vc.blocked,
                     display_tokens(cross.query_tokens, rc.n), display_tokens(cross.key_tokens, rc.m), ImVec2(w, avail.y));
  ImGui::EndGroup();
}

}  // namespace attnlab::gui
