// The Model window's "which heads link these two tokens?" column (head_links_panel.hpp).
#include "gui/model/head_links_panel.hpp"

#include "gui/base/theme.hpp"
#include "gui/shell/apply_command.hpp"  // open_file_dialog (transitional)
#include "gui/model/head_map_view.hpp"
#include "gui/state/head_link_actions.hpp"
#include "gui/state/model_actions.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>

namespace attnlab::gui {

namespace {

std::string quoted_at(const ModelUi& m, int at) {
  return m.model->quoted_token(m.ids[static_cast<std::size_t>(at)]) + " (" + std::to_string(at) + ")";
}

// The outlined top heads, one a line with a bar as long as the weight: a click chooses that head.
void draw_ranking(AppState& state) {
  ModelUi& m = state.model;
  const Palette pal = palette(state.view);
  const float fs = ImGui::GetFontSize();
  const int shown = std::min(static_cast<int>(m.link.ranking.size()), std::max(m.link.outlined, 1));
  const float name_w = ImGui::CalcTextSize("#10 L00H00").x;
  const float bar_w = std::max(fs * 2, ImGui::GetContentRegionAvail().x - name_w - fs * 2.8f);
  for (int r = 0; r < shown; ++r) {
    const model::HeadLink& k = m.link.ranking[static_cast<std::size_t>(r)];
    const std::string name = "#" + std::to_string(r + 1) + " L" + std::to_string(k.layer) + "H" + std::to_string(k.head);
    const ImVec2 at = ImGui::GetCursorScreenPos();
    ImGui::PushID(r);
    if (ImGui::Selectable(name.c_str(), m.layer == k.layer && m.head == k.head, 0, ImVec2(name_w, 0))) choose_head(m, k.layer, k.head);
    ImGui::PopID();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float x0 = at.x + name_w + fs * 0.3f, w = bar_w * static_cast<float>(std::clamp(k.weight, 0.0, 1.0));
    dl->AddRectFilled(ImVec2(x0, at.y + fs * 0.15f), ImVec2(x0 + w, at.y + fs * 0.95f), pal.good);
    dl->AddText(ImVec2(x0 + w + fs * 0.25f, at.y), pal.text, format_number(k.weight, NumberUse::Cell, 2).c_str());
  }
}

}  // namespace

void draw_head_links_panel(AppState& state) {
  ModelUi& m = state.model;
  refresh_link_ranking(m);
  HeadLinkUi& k = m.link;
  if (k.query < 0) {
    hint_text("Which heads link two tokens? Click one (the query), then an earlier one (the key).");
    return;
  }
  if (k.key < 0) {
    text_wrapped_unformatted("Query " + quoted_at(m, k.query) + ": now click the key, a token at or before it.");
    if (ImGui::SmallButton("Clear##link")) clear_link(m);
    return;
  }
  text_wrapped_unformatted("Heads linking " + quoted_at(m, k.query) + " → " + quoted_at(m, k.key) + ":");
  if (!k.notice.empty()) {
    hint_text(k.notice);
  }
  if (k.ranking.empty()) {
    ImGui::TextDisabled("waiting for the run…");
    return;
  }
  draw_ranking(state);
  const std::string share = format_number(even_share(m), NumberUse::Cell, 2);
  hint_text(k.ranking.front().weight > even_share(m)
                ? "Outlined in the grid: the top heads above an even share of the " + count_of(k.query + 1, "key") + " (" + share + ")."
                : "No head gives this key more than an even share of the " + count_of(k.query + 1, "key") + " (" + share +
                      "): none is outlined.");
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 4.5f);
  int outlined = k.outlined;
  if (ImGui::InputInt("outlined##link", &outlined)) k.outlined = std::clamp(outlined, 1, static_cast<int>(k.ranking.size()));
  if (ImGui::SmallButton("Save CSV…")) open_file_dialog(state, FilePurpose::SaveHeadLinks);
  ImGui::SameLine();
  if (ImGui::SmallButton("Clear##link")) clear_link(m);
  ImGui::Separator();
}

}  // namespace attnlab::gui
