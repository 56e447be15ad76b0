// "Knock out a head" (docs/MODELS.md, "Interventions"; "QKV, Scaled Dot-Product & Causal Masking",
// Section 2.3): the built-in induction model's heads as a grid of buttons, each named by its kind on
// the probe sequence; a click knocks a head out (or back in) and measures the copy's accuracy with
// the chosen heads out, once, by one engine call (knock_out). The bars set that beside the model as
// is and the two results the lesson is about: the induction heads out, the previous-token heads out.
#include "gui/lessons/knock_out_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/training/training_actions.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

bool knocked_out(const KnockOutUi& ui, const model::HeadIndex& h) { return std::find(ui.out.begin(), ui.out.end(), h) != ui.out.end(); }

// A click puts the head in or out of the choice (kept in the model's order) and measures the copy
// with that choice out.
void toggle_head(const KnockOutNumbers& n, KnockOutUi& ui, const model::HeadIndex& h) {
  if (knocked_out(ui, h)) {
    ui.out.erase(std::find(ui.out.begin(), ui.out.end(), h));
  } else {
    ui.out.push_back(h);
    std::sort(ui.out.begin(), ui.out.end(), [](const model::HeadIndex& a, const model::HeadIndex& b) {
      return a.layer != b.layer ? a.layer < b.layer : a.head < b.head;
    });
  }
  ui.run.reset();
  ui.error.clear();
  if (ui.out.empty()) return;
  try {
    ui.run = knock_out(n, ui.out);
  } catch (const std::exception& e) {
    ui.error = e.what();
  }
}

// The heads, a row per layer: each button says the head, its kind and score, and whether it is out.
void draw_head_grid(const KnockOutNumbers& n, KnockOutUi& ui, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  const ImGuiStyle& style = ImGui::GetStyle();
  // A label on one line where a layer's heads fit across on one line each (a projector's height is
  // short), else the head over its kind.
  int per_row = 1;
  float one_line_w = 0;
  for (const KnockOutHead& h : n.heads) {
    per_row = std::max(per_row, h.head.head + 1);
    one_line_w = std::max(one_line_w, ImGui::CalcTextSize((head_label(h.head) + "  OUT · " + std::string(model::head_kind_name(h.verdict.kind)) +
                                                           " 0.00").c_str()).x);
  }
  const bool one_line = static_cast<float>(per_row) * (one_line_w + style.FramePadding.x * 2 + fs + style.ItemSpacing.x) <=
                        ImGui::GetContentRegionAvail().x;
  float text_w = 0;
  std::vector<std::string> labels;
  for (const KnockOutHead& h : n.heads) {
    const std::string kind(model::head_kind_name(h.verdict.kind));
    labels.push_back(head_label(h.head) + (knocked_out(ui, h.head) ? "  OUT" : "  in") + (one_line ? " · " : "\n") + kind + " " +
                     format_number(h.verdict.score, NumberUse::Cell, 2));
    text_w = std::max({text_w, ImGui::CalcTextSize((head_label(h.head) + "  OUT").c_str()).x,
                       ImGui::CalcTextSize((kind + " 0.00").c_str()).x});
  }
  if (one_line) text_w = one_line_w;
  const ImVec2 size(text_w + style.FramePadding.x * 2 + fs, fs * (one_line ? 1 : 2) + style.FramePadding.y * 2);
  const KnockOutHead* clicked = nullptr;
  ImGui::PushStyleVar(ImGuiStyleVar_ButtonTextAlign, ImVec2(0.0f, 0.5f));
  for (std::size_t i = 0; i < n.heads.size(); ++i) {
    const KnockOutHead& h = n.heads[i];
    if (h.head.head > 0) ImGui::SameLine();
    const bool out = knocked_out(ui, h.head);
    ImGui::PushID(static_cast<int>(i));
    ImGui::PushStyleColor(ImGuiCol_Button, out ? ImGui::ColorConvertU32ToFloat4(pal.error) : style.Colors[ImGuiCol_Button]);
    if (ImGui::Button(labels[i].c_str(), size)) clicked = &h;
    ImGui::PopStyleColor();
    ImGui::PopID();
  }
  ImGui::PopStyleVar();
  if (clicked) toggle_head(n, ui, clicked->head);
}

struct Bar {
  std::string label;
  double accuracy = 0;
  bool chosen = false;  // the student's own choice, drawn in the accent colour
};

// Accuracy bars from 0 to 100%, their labels to the left and the percent after each bar.
void draw_bars(const std::vector<Bar>& bars, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  float label_w = 0;
  for (const Bar& b : bars) label_w = std::max(label_w, ImGui::CalcTextSize(b.label.c_str()).x);
  const float avail = ImGui::GetContentRegionAvail().x;
  const float value_w = ImGui::CalcTextSize("100.0%").x + fs * 0.5f;
  const float bar_w = std::max(fs * 4, avail - label_w - value_w - fs);
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float row_h = fs * 1.4f;
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const Bar& b = bars[i];
    const float y = o.y + row_h * static_cast<float>(i);
    const float x0 = o.x + label_w + fs * 0.5f, x1 = x0 + bar_w * static_cast<float>(std::clamp(b.accuracy, 0.0, 1.0));
    dl->AddText(ImVec2(o.x, y + fs * 0.1f), pal.text, b.label.c_str());
    dl->AddRect(ImVec2(x0, y), ImVec2(x0 + bar_w, y + fs * 1.2f), pal.text_dim);
    dl->AddRectFilled(ImVec2(x0, y), ImVec2(x1, y + fs * 1.2f), b.chosen ? pal.accent : pal.good);
    dl->AddText(ImVec2(x0 + bar_w + fs * 0.4f, y + fs * 0.1f), pal.text, percent(100 * b.accuracy, 1).c_str());
  }
  ImGui::Dummy(ImVec2(label_w + bar_w + value_w + fs, row_h * static_cast<float>(bars.size())));
}

}  // namespace

void draw_knock_out_page(const PageInputs& in, const KnockOutNumbers* numbers, KnockOutUi& ui, Commands& out) {
  if (!numbers_or_why(in, numbers, "The knock-out lesson cannot run here: ")) return;
  const KnockOutNumbers& n = *numbers;
  const Palette pal = palette(in.ctx.view);
  const model::HeadIndex last = n.heads.empty() ? model::HeadIndex{} : n.heads.back().head;
  text_wrapped_unformatted("The built-in " + n.model + " model, " + count_of(last.layer + 1, "layer") + " × " + count_of(last.head + 1, "head") +
                           ": click a head to knock it out (its output set to zero), "
                           "again to put it back.");
  draw_head_grid(n, ui, pal);
  std::vector<Bar> bars{{"as is", n.as_is.accuracy.value(), false}};
  if (ui.run) bars.push_back({"your choice out", ui.run->accuracy.value(), true});
  bars.push_back({"induction heads out", n.induction_out.accuracy.value(), false});
  bars.push_back({"previous-token heads out", n.previous_out.accuracy.value(), false});
  draw_bars(bars, pal);
  text_wrapped_unformatted("The copy's accuracy over " + std::to_string(n.as_is.accuracy.counted) + " judged positions (" +
                           std::to_string(n.sequences) + " sequences). Induction heads " + head_labels(n.induction_out.heads) +
                           ", previous-token heads " + head_labels(n.previous_out.heads) + " (the detector's kinds on the probe).");
  text_wrapped_unformatted("The previous-token heads copy nothing themselves, yet with them out the copy falls to " +
                           percent(100 * n.previous_out.accuracy.value(), 1) +
                           ": the induction heads find where to copy from in what the previous-token heads wrote. The two compose.");
  const KnockOutRun& shown = ui.run ? *ui.run : n.as_is;
  text_wrapped_unformatted("On the probe at position " + std::to_string(n.probe.position) + " the right next token is " +
                           std::to_string(n.probe.truth) + "; " + (ui.run ? "with " + head_labels(ui.out) + " out" : std::string("as is")) +
                           " the model says " + std::to_string(shown.predicted) + " (p = " + format_number(shown.prob, NumberUse::Cell, 2) +
                           ").");
  error_text(pal.error, ui.error);
  if (ImGui::Button("Open in the Model window")) out.push_back(OpenInModelWindow{n.model, probe_text(n.probe.ids)});
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The %s model on the probe; click a head there and press K to knock it out", n.model.c_str());
}

}  // namespace attnlab::gui
