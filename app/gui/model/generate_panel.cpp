// The Model window's next-token column (docs/MODELS.md, "Generation"): the temperature slider beside
// the next-token bars, each token's probability before temperature (the model's own) and after it
// (what a draw uses, with top-k and top-p), Generate (N tokens or one) and Stop, and the last draw.
// Transformer Explainer's temperature slider, on the model the window has open.
#include "gui/model/generate_panel.hpp"

#include "gui/base/theme.hpp"
#include "gui/state/generate_actions.hpp"
#include "gui/state/model_actions.hpp"
#include "gui/state/model_job.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace attnlab::gui {

namespace {

std::string quoted(const ModelUi& m, int id) { return "'" + m.model->token_text(id) + "'"; }

std::string prob_text(double p) { return format_number(p, NumberUse::Axis, 3); }

// T, Generate / One token / Stop, and the rest of the settings folded away.
void draw_controls(AppState& state) {
  ModelUi& m = state.model;
  GenerateUi& g = m.generate;
  const float fs = ImGui::GetFontSize();
  float t = static_cast<float>(g.sampling.temperature);
  ImGui::SetNextItemWidth(-1);
  if (ImGui::SliderFloat("##temperature", &t, 0.0f, 3.0f, t == 0.0f ? "T = 0 (greedy)" : "temperature T = %.2f")) {
    g.sampling.temperature = std::max(0.0f, t);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The logits are divided by T before the softmax: below 1 sharpens, above 1 flattens; 0 always takes the most probable token");
  const bool busy = m.job != nullptr;
  const bool generating = busy && m.job->generating();
  if (generating) {
    if (ImGui::Button("Stop")) stop_generation(m);
    ImGui::SameLine();
    ImGui::TextDisabled("%s", m.job->status().c_str());
    return;
  }
  ImGui::BeginDisabled(busy || !m.run);
  char label[32];
  std::snprintf(label, sizeof label, "Generate %d", g.count);
  if (ImGui::Button(label)) generate_tokens(m, g.count, state.platform.threads);
  ImGui::SameLine();
  if (ImGui::Button("One token")) generate_tokens(m, 1, state.platform.threads);
  ImGui::EndDisabled();
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
    if (ImGui::SliderFloat("top-p", &p, 0.01f, 1.0f, "%.2f")) g.sampling.top_p = std::clamp(p, 0.01f, 1.0f);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("Draw only from the fewest most probable tokens whose probability reaches p (1: all)");
    int seed = static_cast<int>(g.sampling.seed);
    ImGui::SetNextItemWidth(w);
    if (ImGui::InputInt("seed", &seed)) set_generate_seed(m, static_cast<std::uint64_t>(std::max(0, seed)));
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("The same seed writes the same text");
    ImGui::TreePop();
  }
}

// One token's row: its text, the bar after temperature (filled) over the model's own (outlined).
void draw_bar(const ModelUi& m, int id, double after, double before, float name_w, float bar_w, const Palette& pal) {
  const float fs = ImGui::GetFontSize();
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 at = ImGui::GetCursorScreenPos();
  dl->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), quoted(m, id).c_str());
  const float x0 = at.x + name_w + fs * 0.4f;
  dl->AddRectFilled(ImVec2(x0, at.y + fs * 0.1f), ImVec2(x0 + bar_w * static_cast<float>(after), at.y + fs * 0.75f),
                    ImGui::GetColorU32(ImGuiCol_PlotHistogram));
  dl->AddRect(ImVec2(x0, at.y + fs * 0.8f), ImVec2(x0 + std::max(1.0f, bar_w * static_cast<float>(before)), at.y + fs * 1.0f), pal.text_dim);
  const std::string p = prob_text(after);
  dl->AddText(ImVec2(x0 + bar_w * static_cast<float>(after) + fs * 0.25f, at.y), ImGui::GetColorU32(ImGuiCol_Text), p.c_str());
  ImGui::Dummy(ImVec2(name_w + bar_w + fs * 3, fs * 1.2f));
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("%s: %s after temperature (what a draw uses), %s before (the model's own)", quoted(m, id).c_str(), prob_text(after).c_str(),
                      prob_text(before).c_str());
  }
}

void draw_bars(AppState& state) {
  ModelUi& m = state.model;
  std::vector<int> ids;
  const model::TokenDistribution* d = next_token_bars(m, &ids);
  if (!d) return;
  const float fs = ImGui::GetFontSize();
  const Palette pal = palette(state.view);
  ImGui::TextWrapped("Next token after %s:", quoted(m, m.run->trace.ids.back()).c_str());
  float name_w = 0;
  for (int id : ids) name_w = std::max(name_w, ImGui::CalcTextSize(quoted(m, id).c_str()).x);
  name_w = std::min(name_w, ImGui::GetContentRegionAvail().x * 0.45f);
  const float bar_w = std::max(fs * 2, ImGui::GetContentRegionAvail().x - name_w - fs * 3.2f);
  for (int id : ids) draw_bar(m, id, d->drawn[static_cast<std::size_t>(id)], d->model[static_cast<std::size_t>(id)], name_w, bar_w, pal);
  ImGui::TextDisabled("filled: after T · outline: the model's own");
}

// The token written last, with what it was drawn from: one bad draw at a high temperature is
// where the text starts to wander (exposure bias).
void draw_last_draw(const ModelUi& m) {
  if (m.generate.drawn.empty() || !m.run) return;
  const auto& [pos, t] = *m.generate.drawn.rbegin();
  ImGui::TextWrapped("Drew %s at %s after temperature (the model's own %s), token %lld.", quoted(m, t.id).c_str(), prob_text(t.prob).c_str(),
                     prob_text(t.model_prob).c_str(), static_cast<long long>(pos));
}

}  // namespace

void draw_drawn_token_tooltip(const AppState& state, std::int64_t position) {
  const ModelUi& m = state.model;
  const auto it = m.generate.drawn.find(position);
  if (it == m.generate.drawn.end()) return;
  const model::DrawnToken& t = it->second;
  ImGui::BeginTooltip();
  ImGui::Text("Written by the model: %s, drawn at %s (the model's own %s)", quoted(m, t.id).c_str(), prob_text(t.prob).c_str(),
              prob_text(t.model_prob).c_str());
  for (const model::Candidate& c : t.candidates) {
    ImGui::TextDisabled("%s %s  %s", c.id == t.id ? ">" : " ", prob_text(c.prob).c_str(), quoted(m, c.id).c_str());
  }
  ImGui::EndTooltip();
}

bool written_by_model(const AppState& state, std::int64_t position) { return state.model.generate.drawn.count(position) > 0; }

void draw_generate_panel(AppState& state) {
  if (!state.model.model) return;
  draw_controls(state);
  ImGui::Spacing();
  draw_bars(state);
  draw_last_draw(state.model);
}

}  // namespace attnlab::gui
