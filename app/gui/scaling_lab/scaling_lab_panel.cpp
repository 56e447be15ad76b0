// The Scaling lab: Exercise 2.3.1 (Section 2.3) for any d_k, keys and trials. Scaled against
// unscaled: the std of the logits and the max softmax probability as line charts over d_k (log
// axis), and the histogram of the logits for one d_k. Runs a slice per frame, with a progress
// bar and Cancel, so the window stays responsive. A floating window (View menu), so the pipeline
// keeps the main area to itself.
#include "gui/scaling_lab/scaling_lab_panel.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace attnlab::gui {

namespace {

const ImU32 kUnscaledColor = IM_COL32(240, 140, 40, 255);
const ImU32 kScaledColor = IM_COL32(70, 150, 240, 255);

// A line chart over log2(d_k) with two series. `log_y` draws the y axis on a log10 scale.
void line_chart(const char* id, const char* title, const ScalingResult& r, double (*unscaled)(const ScalingRow&),
                double (*scaled)(const ScalingRow&), bool log_y, double y_lo, double y_hi, ImVec2 size) {
  ImGui::BeginGroup();
  ImGui::TextUnformatted(title);
  const ImVec2 p0 = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton(id, size);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float left = 44, bottom = 20, right = 8, top = 6;
  const ImVec2 a(p0.x + left, p0.y + top), b(p0.x + size.x - right, p0.y + size.y - bottom);
  dl->AddRectFilled(a, b, ImGui::GetColorU32(ImGuiCol_FrameBg));
  if (r.rows.empty()) {
    ImGui::EndGroup();
    return;
  }
  double x_lo = 1e300, x_hi = -1e300;
  for (const auto& row : r.rows) {
    x_lo = std::min(x_lo, std::log2(static_cast<double>(row.d_k)));
    x_hi = std::max(x_hi, std::log2(static_cast<double>(row.d_k)));
  }
  if (x_hi - x_lo < 1) {
    x_lo -= 0.5;
    x_hi += 0.5;
  }
  for (const auto& row : r.rows) y_hi = std::max(y_hi, std::max(unscaled(row), scaled(row)));
  auto ty = [&](double v) {
    double t = log_y ? (std::log10(std::max(v, y_lo)) - std::log10(y_lo)) / (std::log10(y_hi) - std::log10(y_lo))
                     : (v - y_lo) / (y_hi - y_lo);
    return b.y - static_cast<float>(std::clamp(t, 0.0, 1.0)) * (b.y - a.y);
  };
  auto tx = [&](int d_k) {
    return a.x + static_cast<float>((std::log2(static_cast<double>(d_k)) - x_lo) / (x_hi - x_lo)) * (b.x - a.x);
  };
  const ImU32 grid = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  // y ticks: decades for log axes, quarters otherwise.
  if (log_y) {
    for (double v = y_lo; v <= y_hi * 1.0001; v *= 10) {
      dl->AddLine(ImVec2(a.x, ty(v)), ImVec2(b.x, ty(v)), grid & 0x40ffffff);
      dl->AddText(ImVec2(p0.x, ty(v) - 7), grid, significant(v, 6).c_str());
    }
  } else {
    for (int k = 0; k <= 4; ++k) {
      const double v = y_lo + (y_hi - y_lo) * k / 4;
      dl->AddLine(ImVec2(a.x, ty(v)), ImVec2(b.x, ty(v)), grid & 0x40ffffff);
      dl->AddText(ImVec2(p0.x, ty(v) - 7), grid, fixed_decimals(v, 2).c_str());
    }
  }
  for (const auto& row : r.rows) {
    const std::string label = std::to_string(row.d_k);
    const float w = ImGui::CalcTextSize(label.c_str()).x;
    dl->AddText(ImVec2(std::clamp(tx(row.d_k) - w / 2, a.x - w / 2, b.x + right - w), b.y + 3), grid, label.c_str());
  }
  for (int series = 0; series < 2; ++series) {
    const ImU32 color = series == 0 ? kUnscaledColor : kScaledColor;
    for (size_t i = 0; i < r.rows.size(); ++i) {
      const double v = series == 0 ? unscaled(r.rows[i]) : scaled(r.rows[i]);
      const ImVec2 p(tx(r.rows[i].d_k), ty(v));
      dl->AddCircleFilled(p, 3.5f, color);
      if (i > 0) {
        const double u = series == 0 ? unscaled(r.rows[i - 1]) : scaled(r.rows[i - 1]);
        dl->AddLine(ImVec2(tx(r.rows[i - 1].d_k), ty(u)), p, color, 2.0f);
      }
    }
  }
  ImGui::EndGroup();
}

// A mean probability with its spread over trials: "0.3012 (± 0.041)".
std::string with_spread(double mean, double spread) {
  return fixed_decimals(mean, 4) + " (± " + fixed_decimals(spread, 3) + ")";
}

void draw_histogram(const ScalingLabState& lab, const Glyphs& g) {
  const ScalingResult& r = lab.result;
  if (r.rows.empty()) return;
  const int index = std::clamp(lab.histogram_row, 0, static_cast<int>(r.rows.size()) - 1);
  const ScalingRow& row = r.rows[static_cast<size_t>(index)];
  std::vector<float> counts(row.histogram.begin(), row.histogram.end());
  const double root = std::sqrt(static_cast<double>(row.d_k));
  const std::string overlay = std::string("scaled z = q") + g.dot + "k / " + g.sqrt + "d_k in [" +
                              significant(-kScalingHistogramRange, 6) + ", " + significant(kScalingHistogramRange, 6) +
                              "];  unscaled q" + g.dot + "k in [" + fixed_decimals(-kScalingHistogramRange * root, 1) + ", " +
                              fixed_decimals(kScalingHistogramRange * root, 1) + "]";
  ImGui::PlotHistogram("##logit_histogram", counts.data(), static_cast<int>(counts.size()), 0, overlay.c_str(), 0.0f, FLT_MAX,
                       ImVec2(ImGui::GetContentRegionAvail().x, 110));
}

// The form: the d_k values, keys, trials and seed (fixed while a run is under way), Run or Cancel
// with its progress, the backend and the last run's status or error.
void draw_scaling_form(const ViewContext& ctx, ScalingLabState& lab) {
  ImGui::TextUnformatted("d_k:");
  for (int i = 0; i < ScalingLabState::kDkChoices; ++i) {
    const std::string label = std::to_string(1 << i);
    // Wrap the row of checkboxes instead of running off the panel (a SameLine undone by NewLine
    // would leave the window's content an item spacing wider than the window).
    same_line_if_fits(ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x + ImGui::CalcTextSize(label.c_str()).x);
    ImGui::BeginDisabled(lab.running());
    ImGui::Checkbox(label.c_str(), &lab.dk_on[static_cast<size_t>(i)]);
    ImGui::EndDisabled();
  }
  // Each field as wide as its largest number and its − and + buttons, in the font of the moment (a
  // projector's made fixed widths show "1(" for 10 keys), the row flowing onto a new line when the
  // window is narrow.
  const ImGuiStyle& style = ImGui::GetStyle();
  const auto field = [&](const char* label, int& value, int step, int step_fast, const char* widest, bool first) {
    const float buttons = 2 * (ImGui::GetFrameHeight() + style.ItemInnerSpacing.x);
    const float width = ImGui::CalcTextSize(widest).x + 2 * style.FramePadding.x + buttons;
    if (!first) same_line_if_fits(width + style.ItemInnerSpacing.x + ImGui::CalcTextSize(label).x);
    ImGui::SetNextItemWidth(width);
    ImGui::InputInt(label, &value, step, step_fast);
  };
  ImGui::BeginDisabled(lab.running());
  field("keys", lab.keys, 1, 100, std::to_string(kScalingMaxKeys).c_str(), true);
  field("trials", lab.trials, 100, 1000, "100000000", false);
  field("seed", lab.seed, 1, 100, "-2147483648", false);
  ImGui::EndDisabled();
  lab.keys = std::clamp(lab.keys, 1, kScalingMaxKeys);
  lab.trials = std::clamp(lab.trials, 1, 100'000'000);
  if (!lab.running()) {
    same_line_if_fits(button_width("Run"));
    if (ImGui::Button("Run")) start_scaling(lab);
  } else {
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) cancel_scaling(lab);
    ImGui::SameLine();
    ImGui::ProgressBar(static_cast<float>(lab.job ? lab.job->fraction() : 1.0), ImVec2(-1, 0));
  }
  hint_text("backend: " + ctx.services.backend->description() + (lab.status.empty() ? "" : "   |   " + lab.status));
  error_text(palette(ctx.view).error, lab.error);
}

// The finished (or cancelled) run: both readings of each d_k charted, tabulated, and the chosen
// d_k's histogram of logits.
void draw_scaling_results(ScalingLabState& lab, const Glyphs& g) {
  const ScalingResult& r = lab.result;
  ImGui::PushStyleColor(ImGuiCol_Text, kUnscaledColor);
  ImGui::TextUnformatted("unscaled (q·k)");
  ImGui::PopStyleColor();
  ImGui::SameLine(0, 24);
  ImGui::PushStyleColor(ImGuiCol_Text, kScaledColor);
  ImGui::Text("scaled (q%sk / %sd_k)", g.dot, g.sqrt);
  ImGui::PopStyleColor();
  const float width = std::max(200.0f, (ImGui::GetContentRegionAvail().x - 16) / 2);
  line_chart(
      "##std_chart", "std of the logits (log axis)", r, [](const ScalingRow& x) { return x.unscaled_std; },
      [](const ScalingRow& x) { return x.scaled_std; }, true, 0.1, 10.0, ImVec2(width, 170));
  ImGui::SameLine(0, 16);
  line_chart(
      "##max_chart", "max softmax probability", r, [](const ScalingRow& x) { return x.unscaled_max_prob; },
      [](const ScalingRow& x) { return x.scaled_max_prob; }, false, 0.0, 1.0, ImVec2(width, 170));

  if (ImGui::BeginTable("##scaling_table", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("d_k");
    ImGui::TableSetupColumn("unscaled std");
    ImGui::TableSetupColumn("scaled std");
    ImGui::TableSetupColumn("unscaled max prob (± spread)");
    ImGui::TableSetupColumn("scaled max prob (± spread)");
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < r.rows.size(); ++i) {
      const ScalingRow& row = r.rows[i];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string label = std::to_string(row.d_k) + "##hist" + std::to_string(i);
      if (ImGui::Selectable(label.c_str(), lab.histogram_row == static_cast<int>(i), ImGuiSelectableFlags_SpanAllColumns)) {
        lab.histogram_row = static_cast<int>(i);
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(row.unscaled_std, 2).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(row.scaled_std, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(with_spread(row.unscaled_max_prob, row.unscaled_max_prob_spread).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(with_spread(row.scaled_max_prob, row.scaled_max_prob_spread).c_str());
    }
    ImGui::EndTable();
  }
  const int index = std::clamp(lab.histogram_row, 0, static_cast<int>(r.rows.size()) - 1);
  ImGui::Text("Histogram of the logits at d_k = %d (click a row above to choose):", r.rows[static_cast<size_t>(index)].d_k);
  draw_histogram(lab, g);
}

}  // namespace

void draw_scaling_panel(const ViewContext& ctx, ScalingLabState& lab) {
  const Glyphs& g = ctx.services.glyphs;
  text_wrapped("Exercise 2.3.1: draw q and K from N(0, 1), score every key, and compare softmax of the raw "
                     "scores with softmax of the scores divided by %sd_k.",
                     g.sqrt);
  draw_scaling_form(ctx, lab);
  if (lab.result.rows.empty()) {
    ImGui::TextDisabled("Press Run to draw the trials.");
    return;
  }
  draw_scaling_results(lab, g);
}

}  // namespace attnlab::gui
