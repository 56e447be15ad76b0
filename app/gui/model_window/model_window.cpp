// The Model window (docs/MODELS.md, "The Model window"): open a GPT-2, type a text and see its
// tokens as chips (a click on two of them ranks the heads linking them: head_links_panel.cpp), every
// head as a small map in a layers × heads grid labelled with its kind and score (BertViz's "model
// view") with a colour scale, one head enlarged (head_map_view.cpp), "Open in the lab", the
// next-token column with Generate and the temperature slider (generate_panel.cpp), and a keyboard
// chooser (arrows, PageUp/PageDown for a clicker, Enter, Escape).
//
// [SECTION] Opening: the open row, and where to find GPT-2 when none is open
// [SECTION] Text and tokens
// [SECTION] The grid and the enlarged head
// [SECTION] Keyboard, the window
#include "engine/text/bidi.hpp"
#include "engine/text/text_format.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/model_window/model_job.hpp"
#include "gui/model_window/generate_panel.hpp"
#include "gui/model_window/head_links_panel.hpp"
#include "gui/model_window/head_map_view.hpp"
#include "gui/model_window/intervention_actions.hpp"
#include "gui/model_window/intervention_panel.hpp"
#include "gui/model_window/model_window.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/attention_map.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"
#include "gui/widgets/whole_lines.hpp"
#include "gui/state/view_style.hpp"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace attnlab::gui {

namespace {

// [SECTION] Opening: the open row, and where to find GPT-2 when none is open

// Grouped-query models: the query heads that read one K/V head stand together, a gap between groups.
bool grouped(const model::ModelConfig& cfg) { return cfg.n_kv_head < cfg.n_head; }

// "llama · 30 layers × 9 query heads over 3 K/V heads · d_head 64 · RoPE θ 100000 · window 4096".
std::string model_shape_line(const model::ModelConfig& cfg) {
  std::string s = model::family_name(cfg) + " · " + count_of(cfg.n_layer, "layer") + " × " + std::to_string(cfg.n_head) +
                  (grouped(cfg) ? " query heads over " + std::to_string(cfg.n_kv_head) + " K/V head" +
                                      (cfg.n_kv_head == 1 ? "" : "s")
                                : std::string(cfg.n_head == 1 ? " head" : " heads")) +
                  " · d_head " + std::to_string(cfg.d_head);
  if (cfg.positions == model::PositionKind::Rope) s += " · RoPE θ " + significant(cfg.rope_theta, 7);
  else s += " · learned positions";
  if (cfg.sliding_window) s += " · window " + std::to_string(cfg.sliding_window);
  return s;
}

// What an action (open a model, lift a head) asks of the rest of the app, handed on.
void append(Commands& out, Commands more) {
  for (Command& c : more) out.push_back(std::move(c));
}

void draw_open_row(ModelUi& m, bool threaded, Commands& out) {
  ImGui::SetNextItemWidth(std::max(ImGui::GetFontSize() * 10, ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6));
  const bool enter = ImGui::InputTextWithHint("##model_path", "a model folder, a .safetensors or .gguf file, ollama:NAME", &m.path_input,
                                              ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::SameLine();
  if ((ImGui::Button("Open") || enter) && !m.path_input.empty()) append(out, open_model_file(m, m.path_input, threaded));
}

// The models Ollama, LM Studio and the Hugging Face cache keep on this computer (`models --local`'s
// list), found when asked; a click opens one, and one that does not open says why on hover.
void draw_local_models(ModelUi& m, bool threaded, Commands& out) {
  if (!m.local_models) {
    if (ImGui::Button("Find models on this computer")) m.local_models = model::list_local_models();
    ImGui::SameLine();
    ImGui::TextDisabled("the Hugging Face cache, Ollama, LM Studio");
    return;
  }
  if (m.local_models->empty()) {
    ImGui::TextWrapped("No models in the Hugging Face cache, Ollama's store or LM Studio's folder.");
    return;
  }
  ImGui::TextUnformatted("Models on this computer (click one to open it):");
  for (const model::LocalModel& lm : *m.local_models) {
    const std::string label = lm.name + "  ·  " + (lm.family.empty() ? "?" : lm.family) + "  ·  " +
                              (lm.tensor_type.empty() ? "?" : lm.tensor_type) + "  ·  " + human_bytes(static_cast<double>(lm.bytes));
    want_glyphs(label);
    ImGui::BeginDisabled(!lm.opens);
    const bool clicked = ImGui::Selectable(label.c_str());
    ImGui::EndDisabled();
    if (!lm.opens && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", lm.why_not.c_str());
    if (clicked) append(out, open_model_file(m, lm.name, threaded));
  }
}

void draw_no_model(ModelUi& m, bool threaded, Commands& out) {
  ImGui::TextWrapped("No model is open. Open a model folder in the Hugging Face layout or a GGUF file: File > Open model…, drop "
                     "the folder (or its model.safetensors, or the .gguf file) on the window, type its path below, or pick one of "
                     "the models Ollama, LM Studio or the Hugging Face cache keep on this computer.");
  ImGui::Spacing();
  ImGui::TextWrapped("Where to find GPT-2 on this computer: a Hugging Face cache keeps it in "
                     "~/.cache/huggingface/hub/models--gpt2/snapshots/<revision>/ (or under $HF_HOME). The folder holds "
                     "config.json, model.safetensors, vocab.json and merges.txt; Attention Lab reads them where they are and "
                     "never downloads anything.");
  ImGui::Spacing();
  draw_open_row(m, threaded, out);
  ImGui::Spacing();
  draw_local_models(m, threaded, out);
}

// [SECTION] Text and tokens

// The tag in the corner of a chip that is the query or key of "which heads link these two
// tokens?" ("" for neither), and its width: the chip is widened by it, so that it never covers the token.
const char* link_tag(const ModelUi& m, int index) {
  const bool query = m.link.query == index, key = m.link.key == index;
  return query && key ? "QK" : query ? "Q" : key ? "K" : "";
}
float link_tag_width(const char* tag) { return *tag ? ImGui::CalcTextSize(tag).x * 0.6f + 3 : 0.0f; }

// A chip as the query or key of "which heads link these two tokens?" (outlined, Q or K in its
// corner), and a click on it choosing one (head_link_actions.hpp).
void mark_link_chip(ModelUi& m, const Palette& pal, int index, ImVec2 p0, ImVec2 p1) {
  if (const char* tag = link_tag(m, index); *tag) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImU32 c = m.link.query == index ? pal.accent : pal.good;
    dl->AddRect(p0, p1, c, 4, 0, 2.5f);
    dl->AddText(ImGui::GetFont(), ImGui::GetFontSize() * 0.6f, ImVec2(p1.x - link_tag_width(tag), p0.y + 1), c, tag);
  }
  if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(p0, p1)) {
    ImGui::SetMouseCursor(ImGuiMouseCursor_Hand);
    ImGui::SetTooltip("%s", m.link.query < 0 || m.link.key >= 0 ? "Click: the query of \"which heads link two tokens?\""
                                                               : "Click: the key (the heads are ranked by their weight from the query to it)");
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) click_token_chip(m, index);
  }
}

void draw_text_and_tokens(const ViewContext& ctx, ModelUi& m) {
  const Palette pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  std::string text = m.text;
  if (!m.model->tokenizer()) {
    // A folder without a tokenizer still runs: on token ids, as `attnlab model --ids` does.
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    text_wrapped_unformatted("No tokenizer (" + missing_tokenizer_file(*m.model) + "): type the text as token ids, e.g. 5, 17, 42.");
    ImGui::PopStyleColor();
  }
  // On a projector one line of text (it scrolls), so that the heads get the height.
  const float text_h = ctx.view.presenter ? fs * 1.5f : fs * 2.4f;
  if (ImGui::InputTextMultiline("##model_text", &text, ImVec2(-1, text_h))) set_model_text(m, text, ctx.platform.threads);
  // The field keeps right-to-left text in typed order (ImGui edits left to right): how it reads.
  if (has_right_to_left(m.text)) {
    ImGui::TextDisabled("Reads:");
    ImGui::SameLine();
    text_wrapped_unformatted(m.text);
  }
  // The chips: each token's text and id, wrapped to the width, in a box two rows high that
  // scrolls, so that a long text leaves the screen to the heads. A projector's leave the ids out
  // (at its size they would be too small to read), as does a token whose text is its id.
  const bool ids_shown = !ctx.view.presenter;
  const float pad = fs * 0.25f, line_h = (ids_shown ? fs * 1.8f : fs * 1.1f) + pad * 2;
  const std::size_t shown = std::min<std::size_t>(m.ids.size(), 256);
  std::vector<std::string> texts(shown);
  std::vector<float> widths(shown);
  float row_x = 0;
  int rows = 1;
  for (std::size_t i = 0; i < shown; ++i) {
    std::string t = drawn_text(m.model->token_label(m.ids[i]));
    widths[i] = std::max(ImGui::CalcTextSize(t.c_str()).x, ImGui::CalcTextSize(std::to_string(m.ids[i]).c_str()).x * 0.7f) + pad * 2 +
                link_tag_width(link_tag(m, static_cast<int>(i)));
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
    mark_link_chip(m, pal, static_cast<int>(i), at, ImVec2(at.x + w, at.y + line_h - pad));
    // A token the model wrote (Generate): outlined, its draw on hover.
    const auto pos = static_cast<std::int64_t>(i);
    if (written_by_model(m, pos)) {
      dl->AddRect(at, ImVec2(at.x + w, at.y + line_h - pad), ImGui::GetColorU32(ImGuiCol_PlotHistogram), pad, 0, 2.0f);
      if (ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(at, ImVec2(at.x + w, at.y + line_h - pad))) draw_drawn_token_tooltip(m, pos);
    }
    dl->AddText(ImVec2(at.x + pad, at.y + pad * 0.5f), ImGui::GetColorU32(ImGuiCol_Text), t.c_str());
    if (ids_shown && id != t) {
      dl->AddText(ImGui::GetFont(), fs * 0.7f, ImVec2(at.x + pad, at.y + fs * 0.95f), ImGui::GetColorU32(ImGuiCol_TextDisabled), id.c_str());
    }
    at.x += w + pad;
  }
  ImGui::Dummy(ImVec2(1, at.y + line_h - ImGui::GetCursorScreenPos().y));
  ImGui::EndChild();
}

// [SECTION] The grid and the enlarged head

float head_x(const model::ModelConfig& cfg, int h, float side, float gap) {
  return static_cast<float>(h) * (side + gap) + (grouped(cfg) ? static_cast<float>(cfg.kv_group(h)) * gap : 0.0f);
}

// The heads' names along the top, under their K/V group's name when groups are shared.
void draw_head_labels(const model::ModelConfig& cfg, ImVec2& origin, float label_w, float side, float gap) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  if (grouped(cfg)) {
    const int per_group = cfg.n_head / cfg.n_kv_head;
    for (int g = 0; g < cfg.n_kv_head; ++g) {
      const float x0 = origin.x + label_w + head_x(cfg, g * per_group, side, gap);
      const float x1 = origin.x + label_w + head_x(cfg, (g + 1) * per_group - 1, side, gap) + side;
      const std::string t = "K/V " + std::to_string(g);
      dl->AddText(ImVec2(x0, origin.y), dim, t.c_str());
      dl->AddLine(ImVec2(x0, origin.y + fs * 1.1f), ImVec2(x1, origin.y + fs * 1.1f), dim);
    }
    origin.y += fs * 1.3f;
  }
  for (int h = 0; h < cfg.n_head; ++h) {
    const std::string t = "H" + std::to_string(h);
    dl->AddText(ImVec2(origin.x + label_w + head_x(cfg, h, side, gap), origin.y), dim, t.c_str());
  }
  origin.y += fs * 1.2f;
}

// A head's kind and score (or its largest difference) under its map, as wide as the map: the kind's
// first word when the map is too narrow for it ("previous", "first"), then a smaller size, never
// running into the next map.
// The size of a map's label: smaller than the text, but never below what a projector's back row reads.
float map_label_size(const ViewSettings& view) {
  const float fs = ImGui::GetFontSize();
  return view.presenter ? std::max(fs * 0.72f, kLegibleText) : fs * 0.72f;
}

void draw_map_label(const std::string& kind, double value, ImVec2 at, float side, ImU32 colour, float small) {
  const float fs = ImGui::GetFontSize();
  const std::string score = format_number(value, NumberUse::Cell, 2);
  std::string label = kind + " " + score;
  if (ImGui::CalcTextSize(label.c_str()).x * small / fs > side) label = kind.substr(0, std::min(kind.find('-'), std::size_t{5})) + " " + score;
  const float size = std::max(fs * 0.45f, std::min(small, small * side / (ImGui::CalcTextSize(label.c_str()).x * small / fs + 1.0f)));
  ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), size, ImVec2(at.x, at.y + side + 1), colour, label.c_str());
}

// The outline of a head among the top links, with its rank ("#1") in the map's corner.
void draw_link_rank(int rank, ImVec2 at, float side, ImU32 colour) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->AddRect(ImVec2(at.x - 4, at.y - 4), ImVec2(at.x + side + 4, at.y + side + 4), colour, 0, 0, 3.0f);
  const std::string tag = "#" + std::to_string(rank + 1);
  const ImVec2 ts = ImGui::CalcTextSize(tag.c_str());
  dl->AddRectFilled(ImVec2(at.x + side - ts.x - 4, at.y), ImVec2(at.x + side, at.y + ts.y), colour);
  dl->AddText(ImVec2(at.x + side - ts.x - 2, at.y), IM_COL32(0, 0, 0, 255), tag.c_str());
}

// The colour scale right of the head labels, or on a line of its own above them.
void draw_grid_scale(const model::ModelConfig& cfg, const Colormap& map, ImVec2& origin, float label_w, float side, float gap, ImU32 text) {
  const float fs = ImGui::GetFontSize(), scale_w = fs * 6;
  const float right = origin.x + label_w + head_x(cfg, cfg.n_head - 1, side, gap) + side + gap;
  if (right + scale_w + ImGui::CalcTextSize("weight 0  1").x < ImGui::GetWindowPos().x + ImGui::GetWindowWidth()) {
    ImGui::SetCursorScreenPos(ImVec2(right, origin.y));
    draw_weight_scale(map, scale_w, text);
  } else {
    ImGui::SetCursorScreenPos(ImVec2(origin.x + label_w, origin.y));
    draw_weight_scale(map, scale_w, text);
    origin.y += fs * 1.2f;
  }
  ImGui::SetCursorScreenPos(origin);
}

// One head's map in the grid with its label, the chosen head's frame (scrolled into view when the
// keys chose it), its rank among the linked heads, and the tooltip; a click enlarges it.
void draw_grid_head(ModelUi& m, const Palette& pal, const Colormap& map, int l, int h, ImVec2 at, float side, int blocks, float label_px) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // With heads knocked out, every map is the changed model's: those after them redrawn.
  const model::ModelRun& run = *shown_run(m);
  const auto& A = run.trace.heads[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)].weights;
  const auto [i, j] = draw_attention_map(head_map_label(l, h), A, at, side, blocks, map, pal.error);
  // A head that follows no pattern well above even weights has no kind: its label is greyed.
  const model::HeadVerdict& verdict = run.kinds[static_cast<std::size_t>(l)][static_cast<std::size_t>(h)];
  const bool named = verdict.kind != model::HeadKind::Broad && verdict.kind != model::HeadKind::Mixed;
  const auto* d = head_difference(m, l, h);
  if (d && m.intervention.maps == InterventionUi::Maps::Difference) {
    draw_map_label("|difference|", d->max_abs_diff, at, side, ImGui::GetColorU32(ImGuiCol_Text), label_px);
  } else {
    draw_map_label(std::string(model::head_kind_name(verdict.kind)), verdict.score, at, side,
                   ImGui::GetColorU32(named ? ImGuiCol_Text : ImGuiCol_TextDisabled), label_px);
  }
  if (d && d->argmax_changed) {  // its strongest key moved between the two texts
    dl->AddRect(ImVec2(at.x - 5, at.y - 5), ImVec2(at.x + side + 5, at.y + side + 5), pal.accent, 0, 0, 2.0f);
  }
  if (knocked_out(m, l, h)) {  // a cross over the map: its output no longer reaches the stream
    dl->AddLine(at, ImVec2(at.x + side, at.y + side), pal.error, 3.0f);
    dl->AddLine(ImVec2(at.x + side, at.y), ImVec2(at.x, at.y + side), pal.error, 3.0f);
  }
  // A head whose output comes from elsewhere says from where, in a tag over its map's corner.
  const InterventionUi& iv = m.intervention;
  const bool from_lab = iv.use_lab && iv.lab.version != 0 && iv.lab.lifted.head == model::HeadIndex{l, h};
  if (const char* tag = from_lab ? "the lab's" : patched(m, l, h) && iv.second ? "patched" : nullptr) {
    const ImVec2 size = ImGui::CalcTextSize(tag);
    dl->AddRectFilled(at, ImVec2(at.x + size.x + 6, at.y + size.y + 2), pal.accent);
    dl->AddText(ImVec2(at.x + 3, at.y + 1), ImGui::GetColorU32(ImGuiCol_WindowBg), tag);  // the window's ground on the accent reads in both themes
  }
  if (l == m.layer && h == m.head) {
    dl->AddRect(ImVec2(at.x - 2, at.y - 2), ImVec2(at.x + side + 2, at.y + side + 2), ImGui::GetColorU32(ImGuiCol_PlotHistogram), 0, 0, 2.5f);
    if (m.scroll_to_chosen) {
      ImGui::SetCursorScreenPos(at);
      ImGui::SetScrollHereX(0.5f);
      ImGui::SetScrollHereY(0.5f);
      m.scroll_to_chosen = false;
    }
  }
  const int rank = outlined_rank(m, l, h);
  if (rank >= 0) draw_link_rank(rank, at, side, pal.good);
  if (i >= 0) show_cell_hover(m, l, h, i, j);
  if (head_map_button(l, h, at, side)) {
    choose_head(m, l, h);
    m.enlarged = true;
  }
}

void draw_grid(const ViewContext& ctx, ModelUi& m, const Colormap& map) {
  const Palette pal = palette(ctx.view);
  const auto& cfg = m.model->config();
  const float fs = ImGui::GetFontSize();
  const float label_w = ImGui::CalcTextSize("L00").x + fs * 0.4f;
  const float gap = fs * 0.5f;
  // As large as the width allows, and never below 3 font heights, so a projector shows each map's
  // shape (a window narrower than that scrolls); on a projector up to the size its back row reads.
  const float columns = static_cast<float>(cfg.n_head) + (grouped(cfg) ? static_cast<float>(cfg.n_kv_head - 1) * gap / (fs * 3.0f) : 0.0f);
  const float most = ctx.view.presenter ? std::max(fs * 9.0f, kLegibleMapSide) : fs * 9.0f;
  const float side = std::clamp((ImGui::GetContentRegionAvail().x - label_w) / columns - gap, fs * 3.0f, most);
  const float small = map_label_size(ctx.view);
  ImDrawList* dl = ImGui::GetWindowDrawList();
  ImVec2 origin = ImGui::GetCursorScreenPos();
  const float top = origin.y;
  draw_grid_scale(cfg, map, origin, label_w, side, gap, pal.text_dim);
  draw_head_labels(cfg, origin, label_w, side, gap);
  const float row_h = side + small * 1.3f + gap;
  const int blocks = std::max(4, static_cast<int>(side / 3.0f));
  // On a projector the layers take turns, the chosen one shown (layer, ↑ ↓): two rows of maps the
  // back row reads do not fit under the text at 1280 × 720, and layer 1 scrolled out of sight.
  const int first = ctx.view.presenter ? m.layer : 0, rows = ctx.view.presenter ? 1 : cfg.n_layer;
  for (int l = first; l < first + rows; ++l) {
    const float y = origin.y + static_cast<float>(l - first) * row_h;
    const std::string t = "L" + std::to_string(l);
    dl->AddText(ImVec2(origin.x, y + side * 0.5f - fs * 0.5f), ImGui::GetColorU32(ImGuiCol_TextDisabled), t.c_str());
    for (int h = 0; h < cfg.n_head; ++h) draw_grid_head(m, pal, map, l, h, ImVec2(origin.x + label_w + head_x(cfg, h, side, gap), y), side, blocks, small);
  }
  ImGui::Dummy(ImVec2(label_w + head_x(cfg, cfg.n_head - 1, side, gap) + side + gap,
                      origin.y - top + static_cast<float>(rows) * row_h));
}

// [SECTION] Keyboard, the window

void handle_keys(ModelUi& m) {
  if (!ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) || ImGui::GetIO().WantTextInput) return;
  const auto pressed = [](ImGuiKey k) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(k)); };
  const std::pair<int, int> before{m.layer, m.head};
  if (pressed(ImGuiKey_RightArrow)) choose_head(m, m.layer, m.head + 1);
  if (pressed(ImGuiKey_LeftArrow)) choose_head(m, m.layer, m.head - 1);
  if (pressed(ImGuiKey_DownArrow)) choose_head(m, m.layer + 1, m.head);
  if (pressed(ImGuiKey_UpArrow)) choose_head(m, m.layer - 1, m.head);
  if (pressed(ImGuiKey_PageDown)) step_head(m, 1);
  if (pressed(ImGuiKey_PageUp)) step_head(m, -1);
  if (pressed(ImGuiKey_Enter) || pressed(ImGuiKey_KeyPadEnter)) m.enlarged = !m.enlarged;
  if (pressed(ImGuiKey_Escape)) m.enlarged = false;
  if (ImGui::IsKeyPressed(GLFW_KEY_K, false)) toggle_knock_out(m, m.layer, m.head);
  if (std::make_pair(m.layer, m.head) != before) m.scroll_to_chosen = true;
}

}  // namespace

void draw_model_window(const ViewContext& ctx, ModelUi& m, Commands& out) {
  const bool running = poll_model_run(m);
  if (!m.model) {
    draw_no_model(m, ctx.platform.threads, out);
    error_text(palette(ctx.view).error, m.error);
    return;
  }
  const auto& cfg = m.model->config();
  m.hover = {};
  m.drawn_keys = {};
  // The characters of the folder, the text and so its tokens (a Qwen's Chinese), in the font.
  want_glyphs(m.path);
  want_glyphs(m.text);
  ImGui::PushTextWrapPos(0.0f);
  ImGui::Text("%s · %s · %s", m.model->display_name().c_str(), model_shape_line(cfg).c_str(),
              count_of(static_cast<long long>(m.ids.size()), "token").c_str());
  // The folder beside the line where it fits, else under it, broken where it meets the edge (a
  // Hugging Face cache's snapshot path is longer than a projector's window is wide).
  same_line_if_fits(ImGui::CalcTextSize(m.path.c_str()).x);
  ImGui::TextDisabled("%s", m.path.c_str());
  ImGui::PopTextWrapPos();
  if (ImGui::TreeNode("Open another model")) {
    draw_open_row(m, ctx.platform.threads, out);
    draw_local_models(m, ctx.platform.threads, out);
    ImGui::TreePop();
  }
  // The enlarged head takes the text's room; the grid shows the text and its tokens.
  if (!m.enlarged || !m.run) draw_text_and_tokens(ctx, m);
  error_text(palette(ctx.view).error, m.error);
  if (running) {
    ImGui::ProgressBar(static_cast<float>(m.job->progress()), ImVec2(ImGui::GetContentRegionAvail().x - ImGui::GetFontSize() * 6, 0),
                       m.job->status().c_str());
    ImGui::SameLine();
    if (ImGui::Button(m.job->generating() ? "Stop##progress" : "Cancel")) cancel_model_run(m);
  } else if (m.cancelled) {
    hint_text("Cancelled: the maps show the text before the last change.");
  }
  if (!m.run || m.run->kinds.empty()) return;
  handle_keys(m);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  int layer = m.layer, head = m.head;
  if (ImGui::InputInt("layer", &layer)) choose_head(m, layer, m.head);
  ImGui::SameLine();
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 6);
  if (ImGui::InputInt("head", &head)) choose_head(m, m.layer, head);
  ImGui::SameLine();
  if (ImGui::Button(m.enlarged ? "All heads" : "Enlarge")) m.enlarged = !m.enlarged;
  ImGui::SameLine();
  if (ImGui::Button("Open in the lab##top")) append(out, lift_chosen_head(m));
  // The keys' hint where the row has room for it (a projector's has not: the heads need the line).
  const char* keys = "arrows, PageUp/PageDown: choose · Enter: enlarge · K: knock out";
  if (same_line_if_fits(ImGui::CalcTextSize(keys).x)) ImGui::TextDisabled("%s", keys);
  // The heads on the left, the next tokens beside them (a projector is wider than it is tall).
  const Colormap& map = stage_colormap(ctx.view, Stage::Weights);
  const float next_w = std::min(ImGui::GetFontSize() * 13, ImGui::GetContentRegionAvail().x * 0.3f);
  ImGui::BeginChild("##heads", ImVec2(ImGui::GetContentRegionAvail().x - next_w, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
  if (m.enlarged) draw_head_map(ctx, m, map);
  else draw_grid(ctx, m, map);
  ImGui::EndChild();
  ImGui::SameLine();
  ImGui::BeginChild("##next", ImVec2(0, 0), false);
  draw_intervention_panel(ctx, m);
  draw_head_links_panel(ctx, m, out);
  draw_generate_panel(ctx, m);
  // On a projector the list ends at its last whole line (a token cut at its foot is no token).
  if (ctx.view.presenter) keep_lines_whole();
  ImGui::EndChild();
}

}  // namespace attnlab::gui
