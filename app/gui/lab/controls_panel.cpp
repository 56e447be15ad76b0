// Controls: √d_k scaling, temperature (log slider), rotary positions (RoPE: on/off, θ, a shift of
// every position), mask kind and parameter, normalizer.
#include "gui/lab/controls_panel.hpp"

#include "engine/attention/explain.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/edits.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab::gui {

namespace {

// A shortcut reminder in the dim colour: on the same line in normal mode, on a line of its own in
// presenter mode, where the left column is too narrow for both.
void key_hint(const Palette& pal, const char* hint, bool presenter) {
  if (!presenter) ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  ImGui::TextUnformatted(hint);
  ImGui::PopStyleColor();
}

// The label argument for the next widget. Normal mode: the label sits right of a fixed-width
// widget, as ImGui draws it. Presenter mode: the label (and the shortcut) go above and the widget
// takes the whole width, so that big text is never cut off by the column's edge.
const char* label_for(const char* label, const char* hint, const char* id, bool presenter, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  if (!presenter) {
    const float label_w = ImGui::CalcTextSize(label).x + ImGui::GetStyle().ItemInnerSpacing.x;
    ImGui::SetNextItemWidth(std::clamp(ImGui::GetContentRegionAvail().x - label_w, fs * 4.0f, fs * 8.0f));
    return label;
  }
  ImGui::TextUnformatted(label);
  // The shortcut beside the label when both fit the column; a hint that would be cut is left to the
  // tooltip and the Help window.
  if (hint && ImGui::CalcTextSize(label).x + ImGui::CalcTextSize(hint).x + fs <= ImGui::GetContentRegionAvail().x) {
    ImGui::SameLine(0, fs);
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    ImGui::TextUnformatted(hint);
    ImGui::PopStyleColor();
  }
  ImGui::SetNextItemWidth(-1);
  return id;
}

// RoPE: the toggle, then, while it is on, its base θ, a shift of every position (the scores stay:
// they see only distances) and what the frequencies are.
void rope_controls(const Document& doc, Commands& out, const Glyphs& g, const Palette& pal, bool presenter) {
  const Options& o = doc.scenario.options;
  bool on = o.rope.has_value();
  if (ImGui::Checkbox("RoPE positions", &on)) out.push_back(edits::set_rope(doc, on));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("key R: rotate each query and key by its position before the scores");
  if (!o.rope) return;
  const RopeSettings& rope = *o.rope;
  const std::string theta_label = std::string("base ") + g.theta;
  const std::string theta_format = widget_significant(6, std::string(g.theta) + " = ");
  float theta = static_cast<float>(rope.theta);
  if (ImGui::SliderFloat(label_for(theta_label.c_str(), nullptr, "##rope_theta", presenter, pal), &theta, 1.0f, 1e7f,
                         theta_format.c_str(), ImGuiSliderFlags_Logarithmic)) {
    out.push_back(edits::set_rope_theta(doc, theta));
  }
  if (ImGui::IsItemDeactivated()) out.push_back(EndMerge{});

  const Scenario& sc = doc.scenario;
  std::int64_t lowest = edits::kMaxPosition;
  for (std::int64_t p : rope_positions(rope.query_positions, sc.Q.rows())) lowest = std::min(lowest, p);
  for (std::int64_t p : rope_positions(rope.key_positions, sc.K.rows())) lowest = std::min(lowest, p);
  int first = static_cast<int>(lowest);
  if (ImGui::InputInt(label_for("first position", nullptr, "##rope_first", presenter, pal), &first)) {
    out.push_back(edits::shift_rope_positions(doc, static_cast<long long>(first) - lowest));
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("moves every query and key position together: the scores stay");
  if (ImGui::IsItemDeactivated()) out.push_back(EndMerge{});

  const int dk = dim_value(doc, Dim::Dk);
  if (dk % 2) return;  // refused by the engine with its own sentence, shown in place
  const std::vector<double> f = rope_frequencies(rope.theta, rope.scaling, dk);
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped("pair t = (t, t + d_k/2) turns by position%sf_t: the fastest pair %s rad per position, the slowest %s",
               g.dot, hand_number(f.front()).c_str(), hand_number(f.back()).c_str());
  if (rope.scaling.type != RopeScalingType::None) text_wrapped("with the model's rope_scaling %s", rope.scaling.json.c_str());
  ImGui::PopStyleColor();
}

}  // namespace

void draw_controls_panel(const ViewContext& ctx, Commands& out) {
  const Document& doc = ctx.doc;
  const Options& o = doc.scenario.options;
  const Glyphs& g = ctx.services.glyphs;
  const Palette pal = palette(ctx.view);
  const bool presenter = ctx.view.presenter;
  const int dk = dim_value(doc, Dim::Dk);
  const double sqrt_dk = std::sqrt(static_cast<double>(dk));

  bool scale = o.scale;
  const std::string scale_label = std::string(g.divide) + " " + g.sqrt + "d_k = " + g.sqrt + std::to_string(dk) + " = " +
                                  hand_number(sqrt_dk);
  if (ImGui::Checkbox(scale_label.c_str(), &scale)) out.push_back(edits::set_scale(scale));
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("scaling by the square root of d_k (key S)");

  float t = static_cast<float>(o.temperature);
  // The value above the slider, not inside it: its handle sat over the "=" at T = 1 (the dry run).
  ImGui::TextUnformatted(("temperature T = " + significant(o.temperature, 3)).c_str());
  key_hint(pal, "[ and ] change T", presenter);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderFloat("##temperature", &t, 0.05f, 20.0f, "", ImGuiSliderFlags_Logarithmic)) {
    out.push_back(edits::set_temperature(t));
  }
  if (ImGui::IsItemDeactivated()) out.push_back(EndMerge{});
  const double s = o.scale ? sqrt_dk : 1.0;
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped("effective s%sT = %s %s %s = %s", g.dot, hand_number(s).c_str(), g.dot,
              hand_number(o.temperature).c_str(), hand_number(s * o.temperature).c_str());
  ImGui::PopStyleColor();

  rope_controls(doc, out, g, pal, presenter);

  const MaskKind kinds[] = {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::Prefix, MaskKind::Window,
                            MaskKind::Custom};
  const std::string current(mask_kind_name(o.mask.kind));
  if (ImGui::BeginCombo(label_for("mask", "M: next", "##mask", presenter, pal), current.c_str())) {
    for (MaskKind k : kinds) {
      const std::string name(mask_kind_name(k));
      if (ImGui::Selectable(name.c_str(), k == o.mask.kind) && k != o.mask.kind) out.push_back(edits::set_mask_kind(k));
    }
    ImGui::EndCombo();
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("key M: the next mask kind");
  const char* param_name = o.mask.kind == MaskKind::Padding  ? "valid keys L"
                           : o.mask.kind == MaskKind::Prefix ? "prefix P"
                           : o.mask.kind == MaskKind::Window ? "window W"
                                                             : nullptr;
  if (param_name) {
    int p = o.mask.param;
    if (ImGui::InputInt(label_for(param_name, nullptr, "##mask_param", presenter, pal), &p)) out.push_back(edits::set_mask_param(p));
    if (ImGui::IsItemDeactivated()) out.push_back(EndMerge{});
  }
  if (o.mask.kind == MaskKind::Custom) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped("Click cells of the scores, logits or weights to block or unblock them.");
    ImGui::PopStyleColor();
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped("Shift+click a cell to block it (turns the mask into a custom one).");
    ImGui::PopStyleColor();
  }

  const Normalizer norms[] = {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax};
  const std::string cur_norm(normalizer_name(o.normalizer));
  if (ImGui::BeginCombo(label_for("normalizer", nullptr, "##normalizer", presenter, pal), cur_norm.c_str())) {
    for (Normalizer n : norms) {
      const std::string name(normalizer_name(n));
      if (ImGui::Selectable(name.c_str(), n == o.normalizer) && n != o.normalizer) out.push_back(edits::set_normalizer(n));
    }
    ImGui::EndCombo();
  }
}

}  // namespace attnlab::gui
