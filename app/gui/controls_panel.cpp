// Controls: √d_k scaling, temperature (log slider), mask kind and parameter, normalizer.
#include "gui/actions.hpp"
#include "gui/explain.hpp"
#include "gui/panels.hpp"
#include "gui/theme.hpp"

#include <cmath>

namespace attnlab::gui {

void draw_controls_panel(AppState& state, Services& services) {
  const Options& o = state.doc.scenario.options;
  const Glyphs& g = services.glyphs;
  const Palette pal = palette(state);
  const int dk = actions::dim_value(state, Dim::Dk);
  const double sqrt_dk = std::sqrt(static_cast<double>(dk));

  bool scale = o.scale;
  const std::string scale_label = std::string(g.divide) + " " + g.sqrt + "d_k = " + g.sqrt + std::to_string(dk) + " = " +
                                  hand_number(sqrt_dk);
  if (ImGui::Checkbox(scale_label.c_str(), &scale)) actions::set_scale(state, scale);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("scaling by the square root of d_k (key S)");

  float t = static_cast<float>(o.temperature);
  ImGui::TextUnformatted("temperature T");
  ImGui::SameLine();
  ImGui::TextDisabled("[ / ]");
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderFloat("##temperature", &t, 0.05f, 20.0f, "T = %.3g", ImGuiSliderFlags_Logarithmic)) {
    actions::set_temperature(state, t);
  }
  if (ImGui::IsItemDeactivated()) end_merge(state);
  const double s = o.scale ? sqrt_dk : 1.0;
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  ImGui::TextWrapped("effective s%sT = %s %s %s = %s", g.dot, hand_number(s).c_str(), g.dot,
              hand_number(o.temperature).c_str(), hand_number(s * o.temperature).c_str());
  ImGui::PopStyleColor();

  const MaskKind kinds[] = {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::Prefix, MaskKind::Window,
                            MaskKind::Custom};
  const std::string current(mask_kind_name(o.mask.kind));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::BeginCombo("mask [M]", current.c_str())) {
    for (MaskKind k : kinds) {
      const std::string name(mask_kind_name(k));
      if (ImGui::Selectable(name.c_str(), k == o.mask.kind) && k != o.mask.kind) actions::set_mask_kind(state, k);
    }
    ImGui::EndCombo();
  }
  const char* param_name = o.mask.kind == MaskKind::Padding  ? "valid keys L"
                           : o.mask.kind == MaskKind::Prefix ? "prefix P"
                           : o.mask.kind == MaskKind::Window ? "window W"
                                                             : nullptr;
  if (param_name) {
    int p = o.mask.param;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6.5f);
    if (ImGui::InputInt(param_name, &p)) actions::set_mask_param(state, p);
    if (ImGui::IsItemDeactivated()) end_merge(state);
  }
  if (o.mask.kind == MaskKind::Custom) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    ImGui::TextWrapped("Click cells of the scores, logits or weights to block or unblock them.");
    ImGui::PopStyleColor();
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    ImGui::TextWrapped("Shift+click a cell to block it (turns the mask into a custom one).");
    ImGui::PopStyleColor();
  }

  const Normalizer norms[] = {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax};
  const std::string cur_norm(normalizer_name(o.normalizer));
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 8);
  if (ImGui::BeginCombo("normalizer", cur_norm.c_str())) {
    for (Normalizer n : norms) {
      const std::string name(normalizer_name(n));
      if (ImGui::Selectable(name.c_str(), n == o.normalizer) && n != o.normalizer) actions::set_normalizer(state, n);
    }
    ImGui::EndCombo();
  }
}

}  // namespace attnlab::gui
