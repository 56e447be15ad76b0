// Exercise 2.3.1 as a lesson: opens the Scaling lab, and shows a small CPU sweep of the exercise.
#include "gui/lessons/scaling_lab_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attnlab::gui {

void draw_scaling_lab_page(const PageInputs& in, const ScalingLabNumbers* numbers, Commands& out) {
  if (ImGui::Button("Open the Scaling lab")) out.push_back(ShowWindow{"Scaling lab"});
  ImGui::SameLine();
  ImGui::TextDisabled("sweep d_k with many trials, on the GPU when there is one");
  if (!numbers_or_why(in, numbers)) return;
  // This scenario's own draw, both ways.
  const LessonVariant &vu = numbers->unscaled, &vsc = numbers->scaled;
  if (!vu.ok() || !vsc.ok()) {
    error_text(palette(in.ctx.view).error, (vu.ok() ? vsc : vu).error);
    return;
  }
  const Result &ru = vu.result, &rs = vsc.result;
  ImGui::Text("This draw, d_k = %lld, %lld keys:", static_cast<long long>(ru.d_k), static_cast<long long>(ru.m));
  ImGui::Text("  unscaled: std of the logits %s, max probability %s", fixed_decimals(sample_std(ru.stats.logits), 2).c_str(),
              fixed_decimals(ru.rows[0].max_weight, 4).c_str());
  ImGui::Text("  scaled:   std of the logits %s, max probability %s", fixed_decimals(sample_std(rs.stats.logits), 2).c_str(),
              fixed_decimals(rs.rows[0].max_weight, 4).c_str());
  ImGui::Spacing();
  ImGui::TextUnformatted("The exercise, means over trials (seeded, CPU):");
  const auto& rows = numbers->sweep;
  if (ImGui::BeginTable("sweep", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    for (const char* h : {"d_k", "unscaled std", "scaled std", "unscaled max prob", "scaled max prob"}) ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const auto& r : rows) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::Text("%lld", r.d_k);
      ImGui::TableNextColumn();
      ImGui::Text("%s  (%s%lld = %s)", fixed_decimals(r.unscaled_std, 2).c_str(), "√", r.d_k,
                  fixed_decimals(std::sqrt(static_cast<double>(r.d_k)), 1).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(r.scaled_std, 2).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(r.unscaled_max_prob, 4).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(r.scaled_max_prob, 4).c_str());
    }
    ImGui::EndTable();
  }
  text_wrapped("Unscaled, the spread grows as %sd_k and the softmax collapses onto one key; scaled, the logits "
                     "keep std %s 1 and the largest weight stays near 0.3 at every d_k.", "√", "≈");
}

}  // namespace attnlab::gui
