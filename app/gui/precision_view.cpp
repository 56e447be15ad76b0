// Numerical stability and precision (seed 002, Exercise 2.3.2's answer sketch): the scenario in
// float32, float16 and bfloat16 (every operation rounded), with and without max-subtraction, with
// −∞, −1e9 and mask·(−1e9) masking; where inf and NaN appear and why.
#include "engine/precision.hpp"
#include "gui/lesson_views.hpp"
#include "gui/theme.hpp"
#include "gui/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

std::string cell(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, std::fabs(v) >= 1e5 ? "%.3g" : "%.4f", v);
  return buf;
}

}  // namespace

void draw_precision_view(AppState& state, Services& services) {
  (void)services;
  LessonUi& ui = state.lesson;
  const Scenario& s = state.doc.scenario;
  const Palette pal = palette(state);
  const ImVec4 bad = ImGui::ColorConvertU32ToFloat4(pal.error), good = ImGui::ColorConvertU32ToFloat4(pal.good);
  if (ui.precision_version != state.result_version) {
    try {
      ui.precision_runs = precision_table(s.problem());
    } catch (const InputError& e) {
      ui.precision_runs.clear();
      text_wrapped("%s", e.what());
      return;
    }
    ui.precision_version = state.result_version;
  }
  const std::vector<PrecisionRun>& runs = ui.precision_runs;
  if (runs.empty()) return;
  ui.precision_run = std::clamp(ui.precision_run, 0, static_cast<int>(runs.size()) - 1);
  const float fs = ImGui::GetFontSize();
  if (ImGui::BeginTable("limits", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    for (const char* h : {"format", "largest", "exp = inf above", "exp = 0 below", "−1e9 stored as"})
      ImGui::TableSetupColumn(h);
    ImGui::TableHeadersRow();
    for (const Precision p : {Precision::Float32, Precision::Float16, Precision::BFloat16}) {
      const FormatLimits l = format_limits(p);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(precision_name(p).data());
      ImGui::TableNextColumn();
      ImGui::Text("%.5g", l.max_finite);
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", l.exp_overflow);
      ImGui::TableNextColumn();
      ImGui::Text("%.2f", l.exp_underflow);
      ImGui::TableNextColumn();
      if (std::isinf(l.minus_1e9)) ImGui::TextColored(bad, "-inf");
      else ImGui::Text("%.0f", l.minus_1e9);
    }
    ImGui::EndTable();
  }
  ImGui::Text("largest logit here: %.2f", static_cast<double>(state.result.stats.logits.max));
  ImGui::TextDisabled("click a row to see its weights below");
  // The runs table scrolls inside what the selected run's weights (under it) leave free, so that
  // those stay on screen in presenter mode at 1280×720.
  const PrecisionRun& shown = runs[static_cast<size_t>(ui.precision_run)];
  const float table_row = fs + ImGui::GetStyle().CellPadding.y * 2 + 1;
  const float below = ImGui::GetTextLineHeightWithSpacing() * 4.5f +
                      table_row * static_cast<float>(std::min<Eigen::Index>(shown.weights.rows(), 16));
  const float runs_h = std::max(fs * 5.0f, ImGui::GetContentRegionAvail().y - below);
  auto col_w = [&](const char* widest) { return ImGui::CalcTextSize(widest).x + fs * 0.5f; };
  if (ImGui::BeginTable("runs", 4, ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_ScrollY,
                        ImVec2(ImGui::GetContentRegionAvail().x, runs_h))) {
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("format", ImGuiTableColumnFlags_WidthFixed, col_w("bfloat16"));
    ImGui::TableSetupColumn("− max", ImGuiTableColumnFlags_WidthFixed, col_w("− max"));
    ImGui::TableSetupColumn("mask", ImGuiTableColumnFlags_WidthFixed, col_w("+mask*-1e9"));
    ImGui::TableSetupColumn("what happens", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableHeadersRow();
    for (size_t k = 0; k < runs.size(); ++k) {
      const PrecisionRun& r = runs[k];
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      const std::string id = std::string(precision_name(r.options.precision)) + "##run" + std::to_string(k);
      if (ImGui::Selectable(id.c_str(), ui.precision_run == static_cast<int>(k), ImGuiSelectableFlags_SpanAllColumns))
        ui.precision_run = static_cast<int>(k);
      // The chosen run (the float16 overflow when the lesson opens) is brought into view once.
      if (ui.precision_run == static_cast<int>(k) && ui.precision_scrolled_to != ui.precision_run) {
        ImGui::SetScrollHereY(0.5f);
        ui.precision_scrolled_to = ui.precision_run;
      }
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(r.options.subtract_max ? "yes" : "no");
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(mask_fill_name(r.options.fill).data());
      ImGui::TableNextColumn();
      ImGui::TextColored(r.finite ? good : bad, "%s", r.verdict.c_str());
    }
    ImGui::EndTable();
  }
  const PrecisionRun& sel = runs[static_cast<size_t>(ui.precision_run)];
  ImGui::Text("weights in %s, %s, mask %s:", precision_name(sel.options.precision).data(),
              sel.options.subtract_max ? "max subtracted" : "no max-subtraction", mask_fill_name(sel.options.fill).data());
  if (ImGui::BeginTable("cells", static_cast<int>(std::min<Eigen::Index>(sel.weights.cols(), 32)),
                        ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) {
    for (Eigen::Index i = 0; i < sel.weights.rows() && i < 16; ++i) {
      ImGui::TableNextRow();
      for (Eigen::Index j = 0; j < sel.weights.cols() && j < 32; ++j) {
        ImGui::TableNextColumn();
        const double v = sel.weights(i, j);
        if (std::isfinite(v)) ImGui::TextUnformatted(cell(v).c_str());
        else ImGui::TextColored(bad, "%s", cell(v).c_str());
      }
    }
    ImGui::EndTable();
  }
  ImGui::Text("exps that are inf: %lld, NaN weights: %lld", sel.exps_health.inf, sel.weights_health.nan);
  ImGui::Text("largest error vs the exact weights: %.2g", sel.max_weight_error);
}

}  // namespace attnlab::gui
