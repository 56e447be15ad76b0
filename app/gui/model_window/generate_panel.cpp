// The Model window's next-token column (docs/MODELS.md, "Generation"): the temperature slider beside
// the next-token bars, each token's own probability (the model's, T = 1) first and what a draw uses
// (after temperature, top-k and top-p) under it, Generate (N tokens or one) and Stop, and the last draw.
// Transformer Explainer's temperature slider, on the model the window has open.
#include "gui/model_window/generate_panel.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/model_window/generate_actions.hpp"
#include "gui/model_window/model_job.hpp"
#include "gui/widgets/text_layout.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

namespace {

// A token as the bars and the draw show it (its characters asked of the font: the next token can
// be one the text does not have yet).
std::string quoted_id(const ModelUi& m, int id) { return drawn_text(m.model->quoted_token(id)); }

std::string prob_text(double p) { return format_number(p, NumberUse::Axis, 3); }

// T, Generate / One token / Stop, and the rest of the settings folded away.
void draw_controls(ModelUi& m, bool threaded) {
  GenerateUi& g = m.generate;
  const float fs = ImGui::GetFontSize();
  float t = static_cast<float>(g.sampling.temperature);
  // The value above the slider, not inside it, where the handle would cover it (the dry run).
  ImGui::TextUnformatted(t == 0.0f ? "temperature T = 0 (greedy)" : ("temperature T = " + fixed_decimals(t, 2)).c_str());
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderFloat("##temperature", &t, 0.0f, 3.0f, "")) {
    g.sampling.temperature = std::max(0.0f, t);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The logits are divided by T before the softmax: below 1 sharpens, above 1 flattens; 0 always takes the most probable token");
  const bool busy = m.job != nullptr;
  const bool generating = busy && m.job->generating();
  if (generating) {
    if (ImGui::Button("Stop")) stop_generation(m);
    ImGui::SameLine();
    hint_text(m.job->status());
    return;
  }
  // Near the model's last position Generate writes what still fits; with none left both wait.
  const int room = m.model->config().n_ctx - static_cast<int>(m.ids.size());
  const int count = std::min(g.count, room);
  ImGui::BeginDisabled(busy || !m.run || room < 1);
  // With no room left the button says no count: "Generate 1" beside "the text fills" reads as an offer.
  const std::string label = room < 1 ? std::string("Generate") : "Generate " + std::to_string(count);
  if (ImGui::Button(label.c_str())) generate_tokens(m, count, threaded);
  ImGui::SameLine();
  if (ImGui::Button("One token")) generate_tokens(m, 1, threaded);
  ImGui::EndDisabled();
  if (room < 1) hint_text("The text fills the model's " + std::to_string(m.model->config().n_ctx) + " positions.");
  if (ImGui::TreeNode("Sampling")) {
    const float w = fs * 5;
    ImGui::SetNextItemWidth(w);
    ImGui::InputInt("tokens", &g.count);
    g.count = std::clamp(g.count, 1, std::max(1, m.model->config().n_ctx));
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt("top-k", &g.sampling.top_k)) g.sampling.top_k = std::max(0, g.sampling.top_k);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Draw only from the k most probable tokens (0: all)");
    float p = static_cast<float>(g.sampling.top_p);
    ImGui::SetNextItemWidth(w);
    if (ImGui::SliderFloat("top-p", &p, 0.01f, 1.0f, widget_decimals(2).c_str())) g.sampling.top_p = std::clamp(p, 0.01f, 1.0f);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Draw only from the fewest most probable tokens whose probability reaches p (1: all)");
    int seed = static_cast<int>(g.sampling.seed);
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt("seed", &seed)) set_generate_seed(m, static_cast<std::uint64_t>(std::max(0, seed)));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The same seed writes the same text");
    ImGui::TreePop();
  }
}

// One token's row: its text, the bar of the model's own probability (T = 1) with its number, and
// under it a thin bar of what a draw uses (after temperature, top-k and top-p), its number in
// brackets where it differs. The drawn token's row is framed and says so.
struct BarRow {
  int id = 0;
  double after = 0, before = 0;
  bool drawn = false;
};

// The room a bar's numbers take past its end, the widest and a margin: with what a draw uses
// ("0.999 (0.999) drawn") or without it ("0.999 drawn", a narrow column: the thin bar and the
// tooltip still show it).
float bar_number_width(bool with_draw) {
  return ImGui::CalcTextSize(with_draw ? "0.000 (0.000) drawn" : "0.000 drawn").x + ImGui::GetFontSize() * 0.5f;
}

// One row: the token's label (cut with `ellipsis` to `name_w`; the tooltip has it whole), its bars and probability.
void draw_bar(const ModelUi& m, const BarRow& row, float name_w, float bar_w, bool with_draw, const Palette& pal, std::string_view ellipsis) {
  const float fs = ImGui::GetFontSize();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  const std::string name = quoted_id(m, row.id);
  const std::string shown = shortened(
      name, name_w, [](std::string_view t) { return ImGui::CalcTextSize(t.data(), t.data() + t.size()).x; }, false, ellipsis);
  dl->AddText(at, row.drawn ? pal.accent : pal.text, shown.c_str());
  const float x0 = at.x + name_w + fs * 0.4f;
  const auto w = [&](double p) { return std::max(1.0f, bar_w * static_cast<float>(p)); };
  dl->AddRectFilled(ImVec2(x0, at.y + fs * 0.1f), ImVec2(x0 + w(row.before), at.y + fs * 0.7f), ImGui::GetColorU32(ImGuiCol_PlotHistogram));
  dl->AddRectFilled(ImVec2(x0, at.y + fs * 0.78f), ImVec2(x0 + w(row.after), at.y + fs * 1.0f), pal.text_dim);
  const std::string own = prob_text(row.before), draw = prob_text(row.after);
  const std::string p = own + (with_draw && draw != own ? " (" + draw + ")" : "") + (row.drawn ? " drawn" : "");
  dl->AddText(ImVec2(x0 + w(row.before) + fs * 0.25f, at.y), row.drawn ? pal.accent : pal.text, p.c_str());
  const float number_w = bar_number_width(with_draw);
  if (row.drawn) dl->AddRect(ImVec2(at.x - 2, at.y - 1), ImVec2(x0 + bar_w + number_w, at.y + fs * 1.12f), pal.accent, 3.0f, 0, 1.5f);
  ImGui::Dummy(ImVec2(name_w + bar_w + number_w, fs * 1.2f));
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s: %s the model's own (T = 1), %s what a draw at this temperature uses", name.c_str(), own.c_str(), draw.c_str());
  }
}

void draw_bar_rows(const ModelUi& m, const std::vector<BarRow>& rows, const Palette& pal, std::string_view ellipsis) {
  const float fs = ImGui::GetFontSize();
  float name_w = 0;
  for (const BarRow& r : rows) name_w = std::max(name_w, ImGui::CalcTextSize(quoted_id(m, r.id).c_str()).x);
  name_w = std::min(name_w, ImGui::GetContentRegionAvail().x * 0.4f);
  const float avail = ImGui::GetContentRegionAvail().x - name_w - fs * 0.4f;
  const bool with_draw = avail - bar_number_width(true) >= fs * 3;
  const float bar_w = std::max(fs * 2, avail - bar_number_width(with_draw));
  for (const BarRow& r : rows) draw_bar(m, r, name_w, bar_w, with_draw, pal, ellipsis);
}

// The model's own next-token probabilities, and under each what a draw at the slider's temperature uses.
void draw_next_bars(ModelUi& m, const Palette& pal, std::string_view ellipsis) {
  std::vector<int> ids;
  const model::TokenDistribution* d = next_token_bars(m, &ids);
  if (!d) return;
  ImGui::TextWrapped("Next token after %s:", quoted_id(m, m.run->trace.ids.back()).c_str());
  std::vector<BarRow> rows;
  for (int id : ids) rows.push_back({id, d->drawn[static_cast<std::size_t>(id)], d->model[static_cast<std::size_t>(id)], false});
  draw_bar_rows(m, rows, pal, ellipsis);
  const GenerateUi& g = m.generate;
  hint_text("bar: the model's own probability · thin bar and (…): what a draw at " +
            (g.sampling.temperature == 0 ? std::string("T = 0 (always the most probable)") : "T = " + fixed_decimals(g.sampling.temperature, 2)) +
            " uses");
}

// The draw that wrote the token at `position`, or null where the model did not write it.
const model::DrawnToken* drawn_token(const ModelUi& m, std::int64_t position) {
  const auto it = m.generate.drawn.find(position);
  return it == m.generate.drawn.end() ? nullptr : &it->second;
}

// The draw that wrote the text's last token: the candidates it was drawn from, the drawn one
// framed. One unlikely draw at a high temperature is where a text starts to wander: the model
// goes on from its own token (exposure bias).
void draw_last_draw(const ModelUi& m, const Palette& pal, std::string_view ellipsis) {
  if (!m.run || m.run->trace.ids.empty()) return;
  const model::DrawnToken* drawn = drawn_token(m, static_cast<std::int64_t>(m.run->trace.ids.size()) - 1);
  if (!drawn) return;
  const model::DrawnToken& t = *drawn;
  ImGui::Spacing();
  ImGui::TextWrapped("The last token, %s, had %s from the model itself and %s in the draw that chose it, from:", quoted_id(m, t.id).c_str(),
                     prob_text(t.model_prob).c_str(), prob_text(t.prob).c_str());
  std::vector<BarRow> rows;
  bool listed = false;
  for (const model::Candidate& c : t.candidates) {
    rows.push_back({c.id, c.prob, c.model_prob, c.id == t.id});
    listed = listed || c.id == t.id;
  }
  // A draw from far down the list: its own row at the end.
  if (!listed) rows.push_back({t.id, t.prob, t.model_prob, true});
  draw_bar_rows(m, rows, pal, ellipsis);
}

}  // namespace

void draw_drawn_token_tooltip(const ModelUi& m, std::int64_t position) {
  const model::DrawnToken* drawn = drawn_token(m, position);
  if (!drawn) return;
  const model::DrawnToken& t = *drawn;
  ImGui::BeginTooltip();
  ImGui::Text("Written by the model: %s, %s from the model itself, %s in the draw", quoted_id(m, t.id).c_str(), prob_text(t.model_prob).c_str(),
              prob_text(t.prob).c_str());
  for (const model::Candidate& c : t.candidates) {
    ImGui::TextDisabled("%s %s  %s", c.id == t.id ? ">" : " ", prob_text(c.prob).c_str(), quoted_id(m, c.id).c_str());
  }
  ImGui::EndTooltip();
}

bool written_by_model(const ModelUi& m, std::int64_t position) { return m.generate.drawn.count(position) > 0; }

void draw_generate_panel(const ViewContext& ctx, ModelUi& m) {
  if (!m.model) return;
  const Palette pal = palette(ctx.view);
  draw_controls(m, ctx.platform.threads);
  ImGui::Spacing();
  draw_next_bars(m, pal, ctx.services.glyphs.ellipsis);
  draw_last_draw(m, pal, ctx.services.glyphs.ellipsis);
}

}  // namespace attnlab::gui
