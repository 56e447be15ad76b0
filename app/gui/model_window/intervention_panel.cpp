// The Model window's "Knock out heads" column (intervention_panel.hpp).
#include "gui/model_window/intervention_panel.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/model_window/intervention_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <string>

namespace attnlab::gui {

namespace {

std::string head_name(const model::HeadIndex& h) { return "L" + std::to_string(h.layer) + "H" + std::to_string(h.head); }

// One sentence on what the change did to the prediction, for the change made.
std::string change_verdict(const InterventionUi& iv, bool moved) {
  const bool out = !iv.knocked_out.empty(), patch = !iv.patched.empty() && iv.second, lab = iv.use_lab && iv.lab.version != 0;
  if (out && !patch && !lab) {
    return moved ? "The prediction changed: the heads knocked out carried what it needed."
                 : "The prediction held: what it needs does not pass only through these heads.";
  }
  if (patch && !out && !lab) {
    return moved ? "The prediction changed: the patched heads carry what differs between the two texts."
                 : "The prediction held: what differs between the two texts does not pass only through the patched heads.";
  }
  if (lab && !out && !patch) return moved ? "Your edit in the lab changed the prediction." : "The prediction held with your edit in the lab.";
  return moved ? "The prediction changed." : "The prediction held.";
}

// The next tokens as the model is beside those with the heads out: the unchanged model's four most
// probable and the changed one's two, each with its two probabilities.
void draw_before_after(const ViewContext& ctx, const ModelUi& m, const model::ModelRun& changed) {
  const Palette pal = palette(ctx.view);
  const InterventionUi& iv = m.intervention;
  const auto& before = m.run->trace.next_tokens;
  const auto& after = changed.trace.next_tokens;
  const auto prob = [](const std::vector<double>& p, int id) {
    return format_number(id >= 0 && static_cast<std::size_t>(id) < p.size() ? p[static_cast<std::size_t>(id)] : 0.0, NumberUse::Axis, 3);
  };
  if (ImGui::BeginTable("##before_after", 3, ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("next token");
    ImGui::TableSetupColumn("as is");
    ImGui::TableSetupColumn("changed");
    ImGui::TableHeadersRow();
    std::vector<int> ids;
    for (std::size_t i = 0; i < std::min<std::size_t>(before.size(), 4); ++i) ids.push_back(before[i].id);
    for (std::size_t i = 0; i < std::min<std::size_t>(after.size(), 2); ++i) {
      if (std::find(ids.begin(), ids.end(), after[i].id) == ids.end()) ids.push_back(after[i].id);
    }
    for (const int id : ids) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(m.model->quoted_token(id).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(prob(iv.before, id).c_str());
      ImGui::TableNextColumn();
      const bool top = !after.empty() && after.front().id == id;
      ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(top ? pal.accent : pal.text), "%s", prob(iv.after, id).c_str());
    }
    ImGui::EndTable();
  }
  const bool moved = !before.empty() && !after.empty() && before.front().id != after.front().id;
  hint_text(change_verdict(iv, moved));
}

void draw_lens(const ModelUi& m, const model::ModelRun& run) {
  const auto& ids = run.trace.ids;
  text_wrapped_unformatted("Logit lens: after each layer, what the model" + std::string(changes_model(m) ? ", changed," : "") +
                           " would predict after " + m.model->quoted_token(ids.back()) + " if it stopped there");
  for (std::size_t l = 0; l < run.trace.lens.size(); ++l) {
    std::string line = "L" + std::to_string(l) + "  ";
    const auto& top = run.trace.lens[l];
    for (std::size_t i = 0; i < std::min<std::size_t>(top.size(), 3); ++i) {
      line += (i ? ", " : "") + m.model->quoted_token(top[i].id) + " " + format_number(top[i].prob, NumberUse::Axis, 2);
    }
    text_wrapped_unformatted(line);
  }
}

// Patching: the chosen head's output on this text replaced by its output on the second.
void draw_patching(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  const std::string chosen = head_name({m.layer, m.head});
  if (ImGui::Button((patched(m, m.layer, m.head) ? "Unpatch " + chosen : "Patch " + chosen + " from the second text").c_str())) {
    toggle_patch(m, m.layer, m.head);
    refresh_intervention(m);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The head's output on this text, at every position, replaced by its output on the second text");
  if (iv.patched.empty()) return;
  std::string heads;
  for (const auto& h : iv.patched) heads += (heads.empty() ? "" : ", ") + head_name(h);
  text_wrapped_unformatted("Patched from the second text: " + heads);
}

// The lab's edit of a head lifted from this window, put back into the model in the head's place.
void draw_lab_head(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  if (iv.lab.version == 0) return;
  if (ImGui::Checkbox("##use_lab", &iv.use_lab)) {
    iv.dirty = true;
    refresh_intervention(m);
  }
  ImGui::SameLine();
  text_wrapped_unformatted("Put the lab's " + head_name(iv.lab.lifted.head) + " back into the model");
  if (iv.use_lab) hint_text("Its output here is the lab's, with your edits (a weight, the temperature, RoPE off); edit it there and come back.");
}

// Attention sinks: the heads that put most weight on the first token, and why a head does.
void draw_sinks(ModelUi& m) {
  InterventionUi& iv = m.intervention;
  ImGui::Checkbox("##sinks", &iv.sinks);
  ImGui::SameLine();
  text_wrapped_unformatted("Attention sinks");
  if (!iv.sinks) return;
  hint_text("A row's weights must sum to 1, so a head with nothing to look for still puts its weight somewhere: trained models put it on "
            "the first token, which every row sees (an attention sink).");
  const model::ModelRun& run = *shown_run(m);
  std::vector<std::pair<double, model::HeadIndex>> shares;
  for (std::size_t l = 0; l < run.kinds.size(); ++l) {
    for (std::size_t h = 0; h < run.kinds[l].size(); ++h) shares.push_back({run.kinds[l][h].scores.first_token, {static_cast<int>(l), static_cast<int>(h)}});
  }
  std::sort(shares.begin(), shares.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  text_wrapped_unformatted("Share of weight on the first token, over every row:");
  for (std::size_t i = 0; i < std::min<std::size_t>(shares.size(), 6); ++i) {
    const auto& [share, h] = shares[i];
    const std::string label = head_name(h) + "  " + format_number(share, NumberUse::Axis, 2);
    if (ImGui::Selectable(label.c_str(), m.layer == h.layer && m.head == h.head)) choose_head(m, h.layer, h.head);
  }
}

// Two texts side by side: the second text, which text's maps the grid shows, its prediction, and the
// heads whose strongest key moved between them (a click chooses one).
void draw_comparison(const ViewContext& ctx, ModelUi& m) {
  InterventionUi& iv = m.intervention;
  if (ImGui::Checkbox("##compare", &iv.compare)) iv.dirty = true;
  ImGui::SameLine();
  text_wrapped_unformatted("Compare two texts");  // wrapped: a projector's column is narrow
  if (!iv.compare) return;
  ImGui::SetNextItemWidth(-1);
  if (ImGui::InputTextWithHint("##second", "a text of the same token count", &iv.second_text)) iv.dirty = true;
  if (m.model->tokenizer() && !m.model->config().is_toy() && ImGui::SmallButton("'… it was too tired' and '… too wide'")) {
    set_model_text(m, kItTired, ctx.platform.threads);
    iv.second_text = kItWide;
    iv.dirty = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("The pair of \"QKV, Scaled Dot-Product & Causal Masking\", Section 2.3: what does \"it\" attend to?");
  if (!iv.second) return;
  int shown = static_cast<int>(iv.maps);
  ImGui::RadioButton("maps of this text", &shown, 0);
  ImGui::RadioButton("maps of the second", &shown, 1);
  ImGui::RadioButton("their difference", &shown, 2);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Each cell: |weight on this text − weight on the second|");
  iv.maps = static_cast<InterventionUi::Maps>(shown);
  draw_patching(m);
  const auto& next = iv.second->trace.next_tokens;
  std::string line = "Its next token:";
  for (std::size_t i = 0; i < std::min<std::size_t>(next.size(), 3); ++i) {
    line += (i ? ", " : " ") + m.model->quoted_token(next[i].id) + " " + format_number(next[i].prob, NumberUse::Axis, 3);
  }
  text_wrapped_unformatted(line);
  std::vector<std::pair<double, model::HeadIndex>> moved;
  for (std::size_t l = 0; l < iv.differences.size(); ++l) {
    for (std::size_t h = 0; h < iv.differences[l].size(); ++h) {
      if (iv.differences[l][h].argmax_changed) moved.push_back({iv.differences[l][h].max_abs_diff, {static_cast<int>(l), static_cast<int>(h)}});
    }
  }
  std::sort(moved.begin(), moved.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  if (moved.empty()) {
    hint_text("No head's strongest key moved between the two texts.");
    return;
  }
  text_wrapped_unformatted("Heads whose strongest key moved (" + std::to_string(moved.size()) + "), largest difference first:");
  for (std::size_t i = 0; i < std::min<std::size_t>(moved.size(), 6); ++i) {
    const auto& [diff, h] = moved[i];
    const std::string label = head_name(h) + "  " + format_number(diff, NumberUse::Cell, 2);
    if (ImGui::Selectable(label.c_str(), m.layer == h.layer && m.head == h.head)) choose_head(m, h.layer, h.head);
  }
}

}  // namespace

void draw_intervention_panel(const ViewContext& ctx, ModelUi& m) {
  take_lab_head(m, ctx);
  refresh_intervention(m);
  InterventionUi& iv = m.intervention;
  // Folded on a projector until something is asked (its column has room for little else), open on a
  // desk; the window's own draws (knocked-out crosses, framed heads) show either way.
  const bool asked = !iv.knocked_out.empty() || iv.lens || iv.compare || iv.use_lab || iv.sinks;
  ImGui::SetNextItemOpen(asked || !ctx.view.presenter, ImGuiCond_Once);
  if (!ImGui::CollapsingHeader("Knock out heads")) return;
  const std::string chosen = head_name({m.layer, m.head});
  if (ImGui::Button((knocked_out(m, m.layer, m.head) ? "Restore " + chosen : "Knock out " + chosen).c_str())) {
    toggle_knock_out(m, m.layer, m.head);
    refresh_intervention(m);
  }
  // The kind beside the button where the column has room (a projector's has not).
  const float kind_w = ImGui::GetFontSize() * 5.5f;
  same_line_if_fits(kind_w);
  int kind = static_cast<int>(iv.ablation);
  ImGui::SetNextItemWidth(std::min(kind_w, ImGui::GetContentRegionAvail().x));
  if (ImGui::Combo("##ablation", &kind, "zero\0mean\0uniform\0")) {
    iv.ablation = static_cast<model::HeadEdit::Kind>(kind);
    iv.dirty = true;
    refresh_intervention(m);
  }
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("zero: the head's output set to 0\nmean: its mean over the text's positions\nuniform: even weights over the keys it may see");
  }
  if (ImGui::Checkbox("Logit lens", &iv.lens)) {
    iv.dirty = true;
    refresh_intervention(m);
  }
  draw_lab_head(m);
  if (!iv.error.empty()) error_text(palette(ctx.view).error, iv.error);
  if (!iv.knocked_out.empty()) {
    std::string heads;
    for (const auto& h : iv.knocked_out) heads += (heads.empty() ? "" : ", ") + head_name(h);
    text_wrapped_unformatted("Knocked out (" + std::string(model::ablation_name(iv.ablation)) + "): " + heads);
    if (ImGui::SmallButton("Restore all")) {
      iv.knocked_out.clear();
      iv.dirty = true;
      refresh_intervention(m);
    }
  } else {
    hint_text("K or the button knocks the chosen head out: the maps after it and the prediction are redrawn.");
  }
  if (changes_model(m)) draw_before_after(ctx, m, *iv.changed);
  if (iv.lens && iv.changed) draw_lens(m, *iv.changed);
  draw_comparison(ctx, m);
  draw_sinks(m);
  ImGui::Separator();
}

}  // namespace attnlab::gui
