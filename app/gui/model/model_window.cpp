// The Model window (docs/MODELS.md, "The Model window"): open a GPT-2, type a text and see its
// tokens as chips (a click on two of them ranks the heads linking them: head_links_panel.cpp), every
// head as a small map in a layers × heads grid labelled with its kind and score (BertViz's "model
// view") with a colour scale, one head enlarged (head_map_view.cpp), "Open in the lab", the
// next-token top 10, and a keyboard chooser (arrows, PageUp/PageDown for a clicker, Enter, Escape).
//
// [SECTION] Opening: the open row, and where to find GPT-2 when none is open
// [SECTION] Text and tokens
// [SECTION] The grid and the enlarged head
// [SECTION] Next tokens, keyboard, the window
#include "gui/state/head_link_actions.hpp"
#include "gui/state/model_actions.hpp"
#include "gui/state/model_job.hpp"
#include "gui/model/head_links_panel.hpp"
#include "gui/model/head_map_view.hpp"
#include "gui/model/model_window.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/attention_map.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/state/view_style.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace attnlab::gui {

namespace {

std::string quoted_token(const AppState& state, int id) {
  return "'" + state.model.model->token_text(id) + "'";
}

// [SECTION] Opening: the open row, and where to find GPT-2 when none is open

void draw_open_row(AppState& state) {
  ModelUi& m = state.model;
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 10, ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6));
  const bool enter = ImGui::InputTextWithHint("##model_path", "a model folder or its .safetensors file", &m.path_input,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && !m.path_input.empty()) open_model_file(state, m.path_input);
}

void draw_no_model(AppState& state) {
  ImGui::TextWrapped("No model is open. Open a GPT-2 folder in the Hugging Face layout: File > Open model…, drop the folder "
                     "(or its model.safetensors) on the window, or type its path below.");
  ImGui::Spacing();
  ImGui::TextWrapped("Where to find GPT-2 on this computer: a Hugging Face cache keeps it in "
                     "~/.cache/huggingface/hub/models--gpt2/snapshots/<revision>/ (or under $HF_HOME). The folder holds "
                     "config.json, model.safetensors, vocab.json and merges.txt; Attention Lab reads them where they are and "
                     "never downloads anything.");
  ImGui::Spacing();
  draw_open_row(state);
}

// [SECTION] Text and tokens

// A chip as the query or key of "which heads link these two tokens?" (outlined, Q or K in its
// corner), and a click on it choosing one (head_link_actions.hpp).
void mark_link_chip(AppState& state, int index, ImVec2 p0, ImVec2 p1) {
  ModelUi& m = state.model;
  const Palette pal = palette(state.view);
  const bool query = m.link.query == index, key = m.link.key == index;
  if (query || key) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 c = query ? pal.accent : pal.good;
    dl->AddRect(p0, p1, c, 4, 0, 2.5f);
    const float fs = ImGui::GetFontSize();
    const char* tag = query && key ? "QK" : query ? "Q" : "K";
    dl->AddText(ImGui::GetFont(), fs * 0.6f, ImVec2(p1.x - ImGui::CalcTextSize(tag).x * 0.6f - 3, p0.y + 1), c, tag);
  }
  if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1)) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    ImGui::SetTooltip("%s", m.link.query < 0 || m.link.key >= 0 ? "Click: the query of \"which heads link two tokens?\""
                                                               : "Click: the key (the heads are ranked by their weight from the query to it)");
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) click_token_chip(m, index);
  }
}

void draw_text_and_tokens(AppState& state) {
  ModelUi& m = state.model;
  const float fs = ImGui::GetFontSize();
  std::string text = m.text;
  if (ImGui::InputTextMultiline("##model_text", &text, ImVec2(-1, fs * 2.4f))) set_model_text(state.model, text, state.platform.threads);
  // The chips: each token's text and id, wrapped to the width, in a box two rows high that
  // scrolls, so that a long text leaves the screen to the heads.
  const float pad = fs * 0.25f, line_h = fs * 1.8f + pad * 2;
  const std::size_t shown = std::min<std::size_t>(m.ids.size(), 256);
  std::vector<std::string> texts(shown);
  std::vector<float> widths(shown);
  float row_x = 0;
  int rows = 1;
  for (std::size_t i = 0; i < shown; ++i) {
    std::string t = m.model->token_text(m.ids[i]);
    std::replace(t.begin(), t.end(), '\n', ' ');
    if (!t.empty() && t[0] == ' ') t = "·" + t.substr(1);  // a leading space is part of GPT-2's token
    widths[i] = std::max(ImGui::CalcTextSize(t.c_str()).x, ImGui::CalcTextSize(std::to_string(m.ids[i]).c_str()).x * 0.7f) + pad * 2;
    if (row_x + widths[i] > ImGui::GetContentRegionAvail().x && row_x > 0) row_x = 0, ++rows;
    row_x += widths[i] + pad;
    texts[i] = std::move(t);
  }
  ImGui::BeginChild("##chips", ImVec2(0, line_h * static_cast<float>(std::min(rows, 2)) + pad), false);
  const float right = ImGui::GetCursorScreenPos().x + ImGui::GetContentRegionAvail().x;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 at = ImGui::GetCursorScreenPos();
  const float start_x = at.x;
  for (std::size_t i = 0; i < shown; ++i) {
    const std::string& t = texts[i];
    const std::string id = std::to_string(m.ids[i]);
    const float w = widths[i];
    if (at.x + w > right && at.x > start_x) at = ImVec2(start_x, at.y + line_h);
    dl->AddRectFilled(at, ImVec2(at.x + w, at.y + line_h - pad), ImGui::GetColorU32(ImGuiCol_FrameBg), pad);
    mark_link_chip(state, static_cast<int>(i), at, ImVec2(at.x + w, at.y + line_h - pad));
    dl->AddText(ImVec2(at.x + pad, at.y + pad * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), t.c_str());
    dl->AddText(ImGui::GetFont(), fs * 0.7f, ImVec2(at.x + pad, at.y + fs * 0.95f), ImGui::GetColorU32(ImGuiCol_TextDisabled), id.c_str());
    at.x += w + pad;
  }
  ImGui::Dummy(ImVec2(1, at.y + line_h - ImGui::GetCursorScreenPos().y));
  ImGui::EndChild();
}

// [SECTION] The grid and the enlarged head

// A head's kind and score under its map, as wide as the map: the kind's first word when the map is
// too narrow for it ("previous", "first"), then a smaller size, never running into the next map.
void draw_map_label(const model::HeadVerdict& v, ImVec2 at, float side, ImU32 colour) {
  const float fs = ImGui::GetFontSize(), small = fs * 0.72f;
  std::string kind(model::head_kind_name(v.kind));
  char label[48];
  std::snprintf(label, sizeof label, "%s %.2f", kind.c_str(), v.score);
  if (ImGui::CalcTextSize(label).x * small / fs > side) {
    kind = kind.substr(0, std::min(kind.find('-'), std::size_t{5}));
    std::snprintf(label, sizeof label, "%s %.2f", kind.c_str(), v.score);
  }
  const float size = std::max(fs * 0.45f, std::min(small, small * side / (ImGui::CalcTextSize(label).x * small / fs + 1.0f)));
  ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), size, ImVec2(at.x, at.y + side + 1), colour, label);
}

// The outline of a head among the top links, with its rank ("#1") in the map's corner.
void draw_link_rank(int rank, ImVec2 at, float side, ImU32 colour) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  dl->AddRect(ImVec2(at.x - 4, at.y - 4), ImVec2(at.x + side + 4, at.y + side + 4), colour, 0, 0, 3.0f);
  const std::string tag = "#" + std::to_string(rank + 1);
  const ImVec2 ts = ImGui::CalcTextSize(tag.c_str());
  dl->AddRectFilled(ImVec2(at.x + side - ts.x - 4, at.y), ImVec2(at.x + side, at.y + ts.y), colour);
  dl->AddText(ImVec2(at.x + side - ts.x - 2, at.y), IM_COL32(0, 0, 0, 255), tag.c_str());
  (void)fs;
}

void draw_grid(AppState& state, const Colormap& map) {
  ModelUi& m = state.model;
  const auto& cfg = m.model->config();
  const Palette pal = palette(state.view);
  const float fs = ImGui::GetFontSize();
  const float label_w = ImGui::CalcTextSize("L00").x + fs * 0.4f;
  const float gap = fs * 0.5f;
  // As large as the width allows, and never below 3 font heights, so a projector shows each map's
  // shape (a window narrower than that scrolls).
  const float side = std::clamp((ImGui::GetContentRegionAvail().x - label_w) / static_cast<float>(cfg.n_head) - gap, fs * 3.0f, fs * 9.0f);
  const float small = fs * 0.72f;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 origin = ImGui::GetCursorScreenPos();
  // The colour scale right of the head labels, or on a line of its own above them.
  const float scale_x = origin.x + label_w + static_cast<float>(cfg.n_head) * (side + gap);
  const float scale_w = fs * 6;
  if (scale_x + scale_w + ImGui::CalcTextSize("weight 0  1").x < ImGui::GetWindowPos().x + ImGui::GetWindowWidth()) {
    ImGui::SetCursorScreenPos(ImVec2(scale_x, origin.y));
    draw_weight_scale(map, scale_w, pal.text_dim);
  } else {
    ImGui::SetCursorScreenPos(ImVec2(origin.x + label_w, origin.y));
    draw_weight_scale(map, scale_w, pal.text_dim);
    origin.y += fs * 1.2f;
  }
  ImGui::SetCursorScreenPos(origin);
  for (int h = 0; h < cfg.n_head; ++h) {
    const std::string t = "H" + std::to_string(h);
    dl->AddText(ImVec2(origin.x + label_w + static_cast<float>(h) * (side + gap), origin.y), pal.text_dim, t.c_str());
  }
  origin.y += fs * 1.2f;
  const float row_h = side + small * 1.3f + gap;
  const int blocks = std::max(4, static_cast<int>(side / 3.0f));
  for (int l = 0; l < cfg.n_layer; ++l) {
    const float y = origin.y + static_cast<float>(l) * row_h;
    const std::string t = "L" + std::to_string(l);
    dl->AddText(ImVec2(origin.x, y + side * 0.5f - fs * 0.5f), pal.text_dim, t.c_str());
    for (int h = 0; h < cfg.n_head; ++h) {
      const ImVec2 at(origin.x + label_w + static_cast<float>(h) * (side + gap), y);
      const auto& A = m.run->trace.heads[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)].weights;
      const auto [i, j] = draw_attention_map(A, at, side, blocks, map, pal.error);
      draw_map_label(m.run->kinds[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)], at, side, ImGui::GetColorU32(ImGuiCol_Text));
      if (l == m.layer && h == m.head) {
        dl->AddRect(ImVec2(at.x - 2, at.y - 2), ImVec2(at.x + side + 2, at.y + side + 2), ImGui::GetColorU32(ImGuiCol_PlotHistogram), 0, 0, 2.5f);
        // A clicker stepping through the heads brings the chosen one into view.
        if (m.scroll_to_chosen) {
          ImGui::SetCursorScreenPos(at);
          ImGui::SetScrollHereX(0.5f);
          ImGui::SetScrollHereY(0.5f);
          m.scroll_to_chosen = false;
        }
      }
      const int rank = outlined_rank(m, l, h);
      if (rank >= 0) draw_link_rank(rank, at, side, pal.good);
      if (i >= 0) {
        show_cell_hover(state, l, h, i, j);
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
          choose_head(state.model, l, h);
          m.enlarged = true;
        }
      }
    }
  }
  ImGui::Dummy(ImVec2(label_w + static_cast<float>(cfg.n_head) * (side + gap), fs * 1.2f + static_cast<float>(cfg.n_layer) * row_h));
}

// [SECTION] Next tokens, keyboard, the window

void draw_next_tokens(AppState& state) {
  const ModelUi& m = state.model;
  const float fs = ImGui::GetFontSize();
  const auto& ids = m.run->trace.ids;
  ImGui::TextWrapped("Next token after %s:", quoted_token(state, ids.back()).c_str());
  float name_w = 0;
  for (const auto& t : m.run->trace.next_tokens) name_w = std::max(name_w, ImGui::CalcTextSize(quoted_token(state, t.id).c_str()).x);
  const float bar_w = std::max(fs * 2, ImGui::GetContentRegionAvail().x - name_w - fs * 3.2f);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  for (const auto& t : m.run->trace.next_tokens) {
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const std::string name = quoted_token(state, t.id);
    dl->AddText(at, ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    const float x0 = at.x + name_w + fs * 0.5f;
    dl->AddRectFilled(ImVec2(x0, at.y + fs * 0.15f), ImVec2(x0 + bar_w * t.prob, at.y + fs * 0.95f), ImGui::GetColorU32(ImGuiCol_PlotHistogram));
    char p[16];
    std::snprintf(p, sizeof p, "%.3f", static_cast<double>(t.prob));
    dl->AddText(ImVec2(x0 + bar_w * t.prob + fs * 0.3f, at.y), ImGui::GetColorU32(ImGuiCol_Text), p);
    ImGui::Dummy(ImVec2(name_w + bar_w + fs * 3, fs * 1.15f));
  }
}

void handle_keys(AppState& state) {
  ModelUi& m = state.model;
  if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) || ImGui::GetIO().WantTextInput) return;
  const auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  const std::pair<int, int> before{m.layer, m.head};
  if (pressed(ImGuiKey_RightArrow)) choose_head(state.model, m.layer, m.head + 1);
  if (pressed(ImGuiKey_LeftArrow)) choose_head(state.model, m.layer, m.head - 1);
  if (pressed(ImGuiKey_DownArrow)) choose_head(state.model, m.layer + 1, m.head);
  if (pressed(ImGuiKey_UpArrow)) choose_head(state.model, m.layer - 1, m.head);
  if (pressed(ImGuiKey_PageDown)) step_head(state.model, 1);
  if (pressed(ImGuiKey_PageUp)) step_head(state.model, -1);
  if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) m.enlarged = !m.enlarged;
  if (pressed(ImGuiKey_Escape)) m.enlarged = false;
  if (std::make_pair(m.layer, m.head) != before) m.scroll_to_chosen = true;
}

}  // namespace

void draw_model_window(AppState& state, Services& services) {
  (void)services;
  ModelUi& m = state.model;
  const bool running = poll_model_run(state.model);
  if (!m.model) {
    draw_no_model(state);
    if (!m.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", m.error.c_str());
    return;
  }
  const auto& cfg = m.model->config();
  m.hover = {};
  m.drawn_keys = {};
  ImGui::Text("%s · %s × %s · d_head %d · %s", m.model->display_name().c_str(), count_of(cfg.n_layer, "layer").c_str(),
              count_of(cfg.n_head, "head").c_str(), cfg.d_head, count_of(static_cast<long long>(m.ids.size()), "token").c_str());
  ImGui::SameLine();
  ImGui::TextDisabled("%s", m.path.c_str());
  if (ImGui::TreeNode("Open another model")) {
    draw_open_row(state);
    ImGui::TreePop();
  }
  // The enlarged head takes the text's room; the grid shows the text and its tokens.
  if (!m.enlarged || !m.run) draw_text_and_tokens(state);
  if (!m.error.empty()) ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", m.error.c_str());
  if (running) {
    char overlay[64];
    std::snprintf(overlay, sizeof overlay, "layer %d of %d", static_cast<int>(m.job->progress() * cfg.n_layer + 0.5), cfg.n_layer);
    ImGui::ProgressBar(static_cast<float>(m.job->progress()), ImVec2(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6, 0), overlay);
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) cancel_model_run(state.model);
  } else if (m.cancelled) {
    ImGui::TextDisabled("Cancelled: the maps show the text before the last change.");
  }
  if (!m.run || m.run->kinds.empty()) return;
  handle_keys(state);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  int layer = m.layer, head = m.head;
  if (ImGui::InputInt("layer", &layer)) choose_head(state.model, layer, m.head);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::InputInt("head", &head)) choose_head(state.model, m.layer, head);
  ImGui::SameLine();
  if (ImGui::Button(m.enlarged ? "All heads" : "Enlarge")) m.enlarged = !m.enlarged;
  ImGui::SameLine();
  if (ImGui::Button("Open in the lab##top")) lift_chosen_head(state);
  ImGui::SameLine();
  ImGui::TextDisabled("arrows, PageUp/PageDown: choose · Enter: enlarge");
  // The heads on the left, the next tokens beside them (a projector is wider than it is tall).
  const Colormap& map = stage_colormap(state.view, Stage::Weights);
  const float next_w = std::min(ImGui::GetFontSize() * 13, ImGui::GetContentRegionAvail().x * 0.3f);
  ImGui::BeginChild("##heads", ImVec2(ImGui::GetContentRegionAvail().x - next_w, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (m.enlarged) draw_head_map(state, map);
  else draw_grid(state, map);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##next", ImVec2(0, 0), false);
  draw_head_links_panel(state);
  draw_next_tokens(state);
  ImGui::EndChild();
}

}  // namespace attnlab::gui
