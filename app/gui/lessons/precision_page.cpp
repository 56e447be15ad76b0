// Numerical stability and precision ("The Query-Key-Value framework", Exercise 2.3.2's answer sketch): the scenario in
// float32, float16 and bfloat16 (every operation rounded), with and without max-subtraction, with
// −∞, −1e9 and mask·(−1e9) masking; where inf and NaN appear and why.
//
// Laid out for a projector at 1280×720 without scrolling: the formats' limits; the 18 runs as a
// grid (format and max-subtraction down, mask fill across; each cell the weights' largest error or
// what broke) beside the chosen run's weights; under both, the chosen run's verdict in full.
#include "gui/lessons/precision_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <span>

namespace attnlab::gui {

namespace {

constexpr Precision kFormats[] = {Precision::Float32, Precision::Float16, Precision::BFloat16};
constexpr MaskFill kFills[] = {MaskFill::NegInf, MaskFill::NegBig, MaskFill::AddNegBig};
constexpr int kRows = 16, kCols = 32;  // the most weights written out

// "mask -inf", "mask -1e9", "+mask*-1e9": the names the weights' title and the CLI use.
std::string fill_header(MaskFill f) {
  const std::string name(mask_fill_name(f));
  return name.find("mask") == std::string::npos ? "mask " + name : name;
}

// A run in a few characters: what broke, or the weights' largest error ("3e-4"; "exact" for 0).
std::string outcome(const PrecisionRun& r) {
  if (!r.finite) return r.weights_health.nan > 0 || r.output_health.nan > 0 ? "NaN" : "inf";
  if (r.max_weight_error == 0) return "exact";
  std::string s = scientific(r.max_weight_error, 0);
  const size_t e = s.find("e-0");
  if (e != std::string::npos) s.erase(e + 2, 1);  // 3e-04 → 3e-4: narrower, the same number
  return s;
}

// A finite run whose weights are still far off (a fully blocked row that leaked) is a warning.
ImU32 outcome_color(const PrecisionRun& r, const Palette& pal) {
  if (!r.finite) return pal.error;
  return r.max_weight_error < 1e-2 ? pal.good : pal.warning;
}

// A table's width for columns whose contents are `widths` wide.
float cells_width(std::span<const float> widths) {
  const ImGuiStyle& st = ImGui::GetStyle();
  float w = 0;
  for (const float c : widths) w += c + st.CellPadding.x * 2 + 1;  // + the border between columns
  return w + 1;
}
float cells_width(std::initializer_list<float> widths) { return cells_width({widths.begin(), widths.size()}); }

// The 18 runs: format × max-subtraction down (the runs' fixed order), mask fill across.
void draw_runs_grid(PrecisionUi& ui, const std::vector<PrecisionRun>& runs, const Palette& pal, float width) {
  if (!ImGui::BeginTable("runs", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit, ImVec2(width, 0))) return;
  ImGui::TableSetupColumn("format");
  ImGui::TableSetupColumn("− max");
  for (const MaskFill f : kFills) ImGui::TableSetupColumn(fill_header(f).c_str());
  ImGui::TableHeadersRow();
  for (size_t row = 0; row * 3 < runs.size(); ++row) {
    ImGui::TableNextRow();
    const PrecisionRun& first = runs[row * 3];
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(precision_name(first.options.precision).data());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(first.options.subtract_max ? "yes" : "no");
    for (size_t c = 0; c < 3 && row * 3 + c < runs.size(); ++c) {
      const size_t k = row * 3 + c;
      ImGui::TableNextColumn();
      ImGui::PushStyleColor(ImGuiCol_Text, outcome_color(runs[k], pal));
      const std::string id = outcome(runs[k]) + "##run" + std::to_string(k);
      const bool chosen = ui.run == static_cast<int>(k);
      if (ImGui::Selectable(id.c_str(), chosen)) ui.run = static_cast<int>(k);
      ImGui::PopStyleColor();
      // The run whose weights and verdict are shown: outlined, so the room sees which one it is.
      if (chosen) ImGui::GetWindowDrawList()->AddRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax(), pal.accent, 0, 0, 2.0f);
    }
  }
  ImGui::EndTable();
}

// The three formats' limits, the chosen run's format highlighted: its limits explain the verdict.
void draw_limits_table(const PrecisionRun& sel, ImVec4 bad) {
  if (!ImGui::BeginTable("limits", 5, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit)) return;
  for (const char* h : {"format", "largest", "exp = inf above", "exp = 0 below", "−1e9 stored as"})
    ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  for (const Precision p : kFormats) {
    const FormatLimits l = format_limits(p);
    ImGui::TableNextRow();
    if (p == sel.options.precision) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, ImGui::GetColorU32(ImGuiCol_Header));
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(precision_name(p).data());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(significant(l.max_finite, 5).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fixed_decimals(l.exp_overflow, 2).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fixed_decimals(l.exp_underflow, 2).c_str());
    ImGui::TableNextColumn();
    if (std::isinf(l.minus_1e9)) ImGui::TextColored(bad, "%s", format_number(l.minus_1e9, NumberUse::Cell, 0).c_str());
    else ImGui::TextUnformatted(fixed_decimals(l.minus_1e9, 0).c_str());
  }
  ImGui::EndTable();
}

// The runs grid's width: its widest format name, "yes"/"− max" and each fill's widest outcome.
float runs_grid_width(const std::vector<PrecisionRun>& runs) {
  float head_w = 0, fill_w[3] = {0, 0, 0};
  for (const Precision p : kFormats) head_w = std::max(head_w, ImGui::CalcTextSize(precision_name(p).data()).x);
  head_w = std::max(head_w, ImGui::CalcTextSize("format").x);
  const float yes_w = std::max(ImGui::CalcTextSize("− max").x, ImGui::CalcTextSize("yes").x);
  for (int c = 0; c < 3; ++c) {
    fill_w[c] = ImGui::CalcTextSize(fill_header(kFills[c]).c_str()).x;
    for (size_t k = static_cast<size_t>(c); k < runs.size(); k += 3)
      fill_w[c] = std::max(fill_w[c], ImGui::CalcTextSize(outcome(runs[k]).c_str()).x);
  }
  return cells_width({head_w, yes_w, fill_w[0], fill_w[1], fill_w[2]});
}

// The chosen run's weights as a table of numbers (the first kRows × kCols), and its width.
struct WeightsTable {
  Eigen::Index rows = 0, cols = 0;
  std::vector<std::string> ql, kl, texts;
  float width = 0;
};

WeightsTable weights_table(const PrecisionRun& sel, const Scenario& s) {
  WeightsTable t;
  t.rows = std::min<Eigen::Index>(sel.weights.rows(), kRows);
  t.cols = std::min<Eigen::Index>(sel.weights.cols(), kCols);
  t.ql = display_tokens(s.query_tokens, sel.weights.rows());
  t.kl = display_tokens(s.key_tokens, sel.weights.cols());
  t.texts.resize(static_cast<size_t>(t.rows * t.cols));
  float label_w = 0;
  std::vector<float> col_w(static_cast<size_t>(t.cols), 0.0f);
  for (Eigen::Index i = 0; i < t.rows; ++i) label_w = std::max(label_w, ImGui::CalcTextSize(t.ql[static_cast<size_t>(i)].c_str()).x);
  for (Eigen::Index j = 0; j < t.cols; ++j) col_w[static_cast<size_t>(j)] = ImGui::CalcTextSize(t.kl[static_cast<size_t>(j)].c_str()).x;
  for (Eigen::Index i = 0; i < t.rows; ++i) {
    for (Eigen::Index j = 0; j < t.cols; ++j) {
      std::string& text = t.texts[static_cast<size_t>(i * t.cols + j)];
      text = format_number(sel.weights(i, j), NumberUse::Cell, 4);
      col_w[static_cast<size_t>(j)] = std::max(col_w[static_cast<size_t>(j)], ImGui::CalcTextSize(text.c_str()).x);
    }
  }
  std::vector<float> widths{label_w};
  widths.insert(widths.end(), col_w.begin(), col_w.end());
  t.width = cells_width(widths);
  return t;
}

void draw_weights_table(const WeightsTable& t, const PrecisionRun& sel, ImVec4 bad) {
  if (ImGui::BeginTable("cells", static_cast<int>(t.cols) + 1, ImGuiTableFlags_Borders | ImGuiTableFlags_SizingFixedFit,
                        ImVec2(t.width, 0))) {
    ImGui::TableSetupColumn("");
    for (Eigen::Index j = 0; j < t.cols; ++j) ImGui::TableSetupColumn(t.kl[static_cast<size_t>(j)].c_str());
    ImGui::TableHeadersRow();
    for (Eigen::Index i = 0; i < t.rows; ++i) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextDisabled("%s", t.ql[static_cast<size_t>(i)].c_str());
      for (Eigen::Index j = 0; j < t.cols; ++j) {
        ImGui::TableNextColumn();
        const std::string& text = t.texts[static_cast<size_t>(i * t.cols + j)];
        if (std::isfinite(sel.weights(i, j))) ImGui::TextUnformatted(text.c_str());
        else ImGui::TextColored(bad, "%s", text.c_str());
      }
    }
    ImGui::EndTable();
  }
  if (t.rows < sel.weights.rows() || t.cols < sel.weights.cols()) {
    ImGui::TextDisabled("(the first %d rows and %d columns)", static_cast<int>(t.rows), static_cast<int>(t.cols));
  }
}

// The verdict in full, wrapped between words (in a table column it was cut mid-sentence), and, in
// normal mode, the counts behind it (on a projector they would be smaller than the room can read;
// the verdict says what they mean).
void draw_verdict(const PrecisionRun& sel, const Palette& pal, bool counts) {
  ImGui::PushStyleColor(ImGuiCol_Text, outcome_color(sel, pal));
  text_wrapped("%s", sel.verdict.c_str());
  ImGui::PopStyleColor();
  if (!counts) return;
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped("exps that are inf: %lld, NaN weights: %lld, largest error vs the exact weights: %s", sel.exps_health.inf,
               sel.weights_health.nan, significant(sel.max_weight_error, 2).c_str());
  ImGui::PopStyleColor();
}

}  // namespace

void draw_precision_page(const PageInputs& in, const PrecisionNumbers* numbers, PrecisionUi& ui, Commands&) {
  const ViewContext& ctx = in.ctx;
  const Palette pal = palette(ctx.view);
  const ImVec4 bad = ImGui::ColorConvertU32ToFloat4(pal.error);
  if (!numbers_or_why(in, numbers)) return;
  const std::vector<PrecisionRun>& runs = numbers->runs;
  if (runs.empty()) return;
  ui.run = std::clamp(ui.run, 0, static_cast<int>(runs.size()) - 1);
  const PrecisionRun& sel = runs[static_cast<size_t>(ui.run)];
  const float fs = ImGui::GetFontSize();

  draw_limits_table(sel, bad);
  ImGui::Text("largest logit here: %s", fixed_decimals(ctx.results.result.stats.logits.max, 2).c_str());
  const char* hint = "each run: its weights' largest error, or what broke; click one";
  same_line_if_fits(ImGui::CalcTextSize(hint).x);
  ImGui::TextDisabled("%s", hint);

  // The grid and the chosen run's weights side by side when both fit (they do at 1280×720 in
  // presenter mode for the lesson's four tokens), else one under the other.
  const float grid_w = runs_grid_width(runs);
  const WeightsTable table = weights_table(sel, ctx.shown());
  const float gap = fs * 1.5f;
  const float avail_w = ImGui::GetContentRegionAvail().x;
  const bool side_by_side = grid_w + gap + table.width <= avail_w;
  ImGui::BeginGroup();
  draw_runs_grid(ui, runs, pal, grid_w);
  ImGui::EndGroup();
  if (side_by_side) ImGui::SameLine(0, gap);
  ImGui::BeginGroup();
  const float right_x = ImGui::GetCursorPosX();
  ImGui::PushTextWrapPos(side_by_side ? right_x + (avail_w - grid_w - gap) : 0.0f);
  text_wrapped("weights in %s, %s, mask %s:", precision_name(sel.options.precision).data(),
               sel.options.subtract_max ? "− max" : "no − max", mask_fill_name(sel.options.fill).data());
  ImGui::PopTextWrapPos();
  draw_weights_table(table, sel, bad);
  ImGui::EndGroup();
  draw_verdict(sel, pal, !ctx.view.presenter);
}

}  // namespace attnlab::gui
