// The Model window's enlarged head and the tooltip its maps share (head_map_view.hpp).
#include "gui/model_window/head_map_view.hpp"

#include "engine/model/head_kinds.hpp"
#include "gui/base/theme.hpp"
#include "gui/model_window/intervention_actions.hpp"
#include "gui/model_window/head_link_actions.hpp"
#include "gui/widgets/attention_map.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {

namespace {

// Up to `max_chars` characters of a UTF-8 label, with "…" when cut.
std::string ellipsized(const std::string& s, std::size_t max_chars) {
  std::size_t chars = 0, at = 0;
  for (; at < s.size(); ++at) {
    if ((static_cast<unsigned char>(s[at]) & 0xc0) == 0x80) continue;  // a continuation byte
    if (chars++ == max_chars) return s.substr(0, at) + "…";
  }
  return s;
}

// Text drawn turned a quarter turn to read upward, its first letter at the bottom: the vertices
// ImGui adds for it are turned about `foot`, where the text's top-left corner starts.
void add_upright_text(ImDrawList* dl, float size, ImVec2 foot, ImU32 colour, const std::string& text) {
  const int first = dl->VtxBuffer.Size;
  dl->AddText(ImGui::GetFont(), size, foot, colour, text.c_str());
  for (int k = first; k < dl->VtxBuffer.Size; ++k) {
    ImVec2& p = dl->VtxBuffer[k].pos;
    const float dx = p.x - foot.x, dy = p.y - foot.y;
    p = ImVec2(foot.x + dy, foot.y - dx);
  }
}

std::string two(double v) { return format_number(v, NumberUse::Cell, 2); }

const model::HeadVerdict& verdict_of(const ModelUi& m, int layer, int head) {
  return shown_run(m)->kinds[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head)];
}

}  // namespace

KeyLabelLayout key_label_layout(const std::vector<std::string>& tokens, float cell) {
  KeyLabelLayout k;
  const float fs = ImGui::GetFontSize();
  // Down to a small size rather than none: a projector's body font is large, and a label at half
  // of it still reads.
  k.size = std::min(fs, cell * 0.95f);
  if (k.size < std::max(10.0f, fs * 0.45f)) {
    k.size = 0;
    return k;
  }
  const auto widest = [&] {
    float w = 0;
    for (const auto& t : k.labels) w = std::max(w, ImGui::CalcTextSize((k.upright ? t : drawn_text(t)).c_str()).x * k.size / fs);
    return w;
  };
  k.labels = tokens;
  if (widest() <= cell * 0.95f) {
    k.band = k.size * 1.25f;
    return k;
  }
  // Wider than a column: upright, long ones cut so the band stays a few lines high.
  k.upright = true;
  for (auto& t : k.labels) t = ellipsized(t, 12);
  k.band = widest() + fs * 0.3f;
  return k;
}

std::string evidence_caption(const model::HeadVerdict& v, int tokens, int repeat_rows) {
  using model::HeadKind;
  const std::string s = two(v.scores.previous_token);
  std::string measured;
  switch (v.pattern) {
    case HeadKind::PreviousToken:
      measured = "previous-token " + s + ": the mean weight on the outlined cells, each row's previous token (key i − 1), over rows 1 to " +
                 std::to_string(tokens - 1) + " (the whole sequence)";
      break;
    case HeadKind::Induction:
      measured = repeat_rows == 0 ? std::string("induction: no token of this text repeats an earlier one, so it cannot be measured here")
                                  : "induction " + two(v.scores.induction) +
                                        ": the mean weight on the outlined cells, the token after each earlier occurrence of the row's "
                                        "token, over the " + std::to_string(repeat_rows) + " rows that repeat one";
      break;
    case HeadKind::FirstToken:
      measured = "first-token " + two(v.scores.first_token) + ": the mean weight on the first token (key 0), over every row";
      // Named as such only when it is the kind: a mixed head's best pattern is no sink.
      if (v.kind == HeadKind::FirstToken) {
        measured += ". An attention sink: a row's weights must sum to 1, and this head puts what it has no use for on the token every row sees";
      }
      break;
    case HeadKind::Self:
      measured = "self " + two(v.scores.self) + ": the mean weight on the row's own token (key i), over rows 1 to " + std::to_string(tokens - 1);
      break;
    default: break;
  }
  if (v.kind == HeadKind::Broad) {
    return "broad " + two(v.scores.broad) + ": no pattern is far enough above what even weights give and the weight is spread out (" + two(v.scores.broad) +
           " of the most spread possible). The best pattern is outlined: " + measured + ".";
  }
  if (v.kind == HeadKind::Mixed) return "mixed, no kind: no pattern is far enough above what even weights give (0.4 of the way to 1) and the weight is not spread out. The best is outlined: " + measured + ".";
  return measured + ".";
}

std::vector<std::string> cell_hover_lines(const ModelUi& m, int layer, int head, int i, int j) {
  const auto& ids = shown_run(m)->trace.ids;
  const model::CausalWeights& A = shown_run(m)->trace.heads[static_cast<std::size_t>(layer)][static_cast<std::size_t>(head)].weights;
  const model::HeadVerdict& v = verdict_of(m, layer, head);
  const auto token = [&](int at) { return m.model->quoted_token(ids[static_cast<std::size_t>(at)]); };
  std::vector<std::string> lines;
  lines.push_back("L" + std::to_string(layer) + "H" + std::to_string(head) + " · " + std::string(model::head_kind_name(v.kind)) + " " +
                  two(v.score));
  lines.push_back("query " + std::to_string(i) + " " + token(i) + " → key " + std::to_string(j) + " " + token(j) + ": " +
                  (j > i ? std::string("blocked (causal)") : "weight " + format_number(A(i, j), NumberUse::Cell, 3)));
  lines.push_back("previous-token " + two(v.scores.previous_token) + " · induction " +
                  (v.scores.induction_rows ? two(v.scores.induction) : std::string("n/a")) + " · first-token " + two(v.scores.first_token) +
                  " · self " + two(v.scores.self) + " · broad " + two(v.scores.broad));
  const int rank = outlined_rank(m, layer, head);
  if (rank >= 0) {
    lines.push_back("links " + token(m.link.query) + " → " + token(m.link.key) + " with " +
                    format_number(m.link.ranking[static_cast<std::size_t>(rank)].weight, NumberUse::Cell, 3) + ": #" + std::to_string(rank + 1) +
                    " of " + std::to_string(m.link.ranking.size()) + " heads");
  }
  return lines;
}

void show_cell_hover(ModelUi& m, int layer, int head, int i, int j) {
  m.hover = {layer, head, i, j};
  ImGui::BeginTooltip();
  const auto lines = cell_hover_lines(m, layer, head, i, j);
  for (std::size_t k = 0; k < lines.size(); ++k) {
    const std::string line = drawn_text(lines[k]);
    if (k == 2) ImGui::TextDisabled("%s", line.c_str());
    else ImGui::TextUnformatted(line.c_str());
  }
  ImGui::EndTooltip();
}

namespace {

// The map's square and its labels in the space left: as large as the height allows (a projector is
// wider than it is tall), the caption beside it when that leaves a column for it, else above.
struct HeadMapPlace {
  float side = 0, label_w = 0;
  KeyLabelLayout keys;
  bool caption_beside = false;
};
HeadMapPlace place_head_map(const std::vector<std::string>& tokens, bool labels, float caption_above_h) {
  const float fs = ImGui::GetFontSize(), scale_h = fs * 1.6f, column = fs * 12;
  HeadMapPlace p;
  if (labels) {
    for (const auto& t : tokens) p.label_w = std::max(p.label_w, ImGui::CalcTextSize(drawn_text(t).c_str()).x);
    p.label_w += fs * 0.4f;
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float n = static_cast<float>(std::max<std::size_t>(1, tokens.size()));
  const auto fit = [&](float band) {
    const float beside = std::min(avail.x - p.label_w - column, avail.y - band);
    p.caption_beside = beside >= std::min(avail.x - p.label_w, avail.y - band - caption_above_h - scale_h);
    p.side = p.caption_beside ? beside : std::min(avail.x - p.label_w, avail.y - band - caption_above_h - scale_h);
    p.side = std::max(fs * 6, p.side);
    p.keys = labels ? key_label_layout(tokens, p.side / n) : KeyLabelLayout{};
  };
  fit(labels ? fs * 1.3f : 0.0f);
  if (p.keys.upright) fit(p.keys.band);
  return p;
}

// The key tokens along the top (upright when long) and the query tokens down the side.
void draw_token_labels(const std::vector<std::string>& tokens, const KeyLabelLayout& keys, ImVec2 at, float cell, ImU32 colour) {
  if (keys.size <= 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  for (std::size_t c = 0; c < keys.labels.size(); ++c) {
    const float cx = at.x + (static_cast<float>(c) + 0.5f) * cell;
    if (keys.upright) {
      // A letter a line, top to bottom in reading order: typed order.
      add_upright_text(dl, keys.size, ImVec2(cx - keys.size * 0.5f, at.y - fs * 0.2f), colour, keys.labels[c]);
    } else {
      const std::string t = drawn_text(keys.labels[c]);
      const float tw = ImGui::CalcTextSize(t.c_str()).x * keys.size / fs;
      dl->AddText(ImGui::GetFont(), keys.size, ImVec2(cx - tw * 0.5f, at.y - keys.band), colour, t.c_str());
    }
  }
  for (std::size_t r = 0; r < tokens.size(); ++r) {
    const std::string t = drawn_text(tokens[r]);
    const float tw = ImGui::CalcTextSize(t.c_str()).x * keys.size / fs;
    dl->AddText(ImGui::GetFont(), keys.size, ImVec2(at.x - tw - fs * 0.2f, at.y + (static_cast<float>(r) + 0.5f) * cell - keys.size * 0.5f),
                colour, t.c_str());
  }
}

// The evidence: the cells the score read, outlined where each token has its own cell.
void draw_evidence(const std::vector<std::pair<int, int>>& cells, int n, ImVec2 at, float cell, ImU32 colour) {
  if (n > 160 || cell < 3) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  // A light line inside a dark one, so it shows on every colour of the map.
  const float thick = std::clamp(cell * 0.08f, 1.0f, 2.5f);
  for (const auto& [r, c] : cells) {
    const ImVec2 p0(at.x + static_cast<float>(c) * cell, at.y + static_cast<float>(r) * cell), p1(p0.x + cell, p0.y + cell);
    dl->AddRect(p0, p1, IM_COL32(0, 0, 0, 255), 0, 0, thick + 1.5f);
    dl->AddRect(ImVec2(p0.x + 0.5f, p0.y + 0.5f), ImVec2(p1.x - 0.5f, p1.y - 0.5f), colour, 0, 0, thick);
  }
}

}  // namespace

void draw_head_map(const ViewContext& ctx, ModelUi& m, const Colormap& map) {
  const float fs = ImGui::GetFontSize();
  const Palette pal = palette(ctx.view);
  const auto& ids = shown_run(m)->trace.ids;
  const int n = static_cast<int>(ids.size());
  const model::HeadVerdict& v = verdict_of(m, m.layer, m.head);
  const model::TokenRepeats repeats = model::token_repeats(ids);
  int repeat_rows = 0;
  for (const auto& keys : repeats.induction_keys) repeat_rows += !keys.empty();
  // A grouped head's keys and values are its group's (issue 69): the title says whose.
  const model::ModelConfig& cfg = m.model->config();
  const std::string group = cfg.n_kv_head > 0 && cfg.n_kv_head < cfg.n_head ? " · K/V head " + std::to_string(cfg.kv_group(m.head)) : "";
  ImGui::Text("L%dH%d%s · %s %s", m.layer, m.head, group.c_str(), std::string(model::head_kind_name(v.kind)).c_str(), two(v.score).c_str());
  std::string caption = evidence_caption(v, n, repeat_rows);
  if (const auto* d = head_difference(m, m.layer, m.head); d && m.intervention.maps == InterventionUi::Maps::Difference) {
    caption = "Each cell: |weight on this text − weight on the second|, the largest " + two(d->max_abs_diff) +
              (d->argmax_changed ? ", and a query's strongest key moved" : "") + ". Outlined: this text's " + caption;
  }
  std::vector<std::string> tokens;
  for (int id : ids) tokens.push_back(m.model->token_label(id));
  const float caption_h = wrapped_text_height(caption, ImGui::GetContentRegionAvail().x) + ImGui::GetStyle().ItemSpacing.y;
  const HeadMapPlace p = place_head_map(tokens, n <= 64, caption_h);
  if (!p.caption_beside) text_wrapped_unformatted(caption);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const ImVec2 at(top.x + p.label_w, top.y + p.keys.band);
  const model::CausalWeights& A = shown_run(m)->trace.heads[static_cast<std::size_t>(m.layer)][static_cast<std::size_t>(m.head)].weights;
  const auto [i, j] = draw_attention_map("L" + std::to_string(m.layer) + "H" + std::to_string(m.head) + " enlarged", A, at, p.side, 160, map, pal.error);
  const float cell = p.side / static_cast<float>(n);
  draw_token_labels(tokens, p.keys, at, cell, pal.text);
  m.drawn_keys = p.keys;
  draw_evidence(model::pattern_cells(v.pattern, repeats), n, at, cell, IM_COL32(255, 255, 255, 255));
  if (m.link.query >= 0 && m.link.key >= 0 && m.link.query < n) {
    // The two linked tokens' cell, in the chips' key colour.
    const ImVec2 p0(at.x + static_cast<float>(m.link.key) * cell, at.y + static_cast<float>(m.link.query) * cell);
    ImGui::GetWindowDrawList()->AddRect(ImVec2(p0.x - 2, p0.y - 2), ImVec2(p0.x + cell + 2, p0.y + cell + 2), pal.good, 0, 0, 3.0f);
  }
  if (i >= 0) show_cell_hover(m, m.layer, m.head, i, j);
  if (p.caption_beside) {
    // The caption and the scale in the column right of the map.
    const float x = at.x + p.side + fs;
    ImGui::SetCursorScreenPos(ImVec2(x, top.y));
    ImGui::PushTextWrapPos(ImGui::GetWindowContentRegionMax().x);
    text_wrapped_unformatted(caption);
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(x, ImGui::GetCursorScreenPos().y + fs * 0.5f));
    draw_weight_scale(map, fs * 6, pal.text_dim);
    ImGui::SetCursorScreenPos(top);
    ImGui::Dummy(ImVec2(p.label_w + p.side, p.side + p.keys.band));
  } else {
    ImGui::Dummy(ImVec2(p.label_w + p.side, p.side + p.keys.band));
    ImGui::SetCursorScreenPos(ImVec2(at.x, ImGui::GetCursorScreenPos().y));
    draw_weight_scale(map, std::min(p.side * 0.5f, fs * 12), pal.text_dim);
  }
}

void draw_weight_scale(const Colormap& map, float width, ImU32 text) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const float fs = ImGui::GetFontSize();
  const ImVec2 a = ImGui::GetCursorScreenPos();
  const float w0 = ImGui::CalcTextSize("weight 0 ").x, w1 = ImGui::CalcTextSize(" 1").x;
  dl->AddText(a, text, "weight 0");
  const float x0 = a.x + w0, y0 = a.y + fs * 0.2f, y1 = a.y + fs * 0.85f;
  constexpr int kSteps = 48;
  for (int k = 0; k < kSteps; ++k) {
    const Rgb c = map.at((k + 0.5) / kSteps);
    const float xa = x0 + width * static_cast<float>(k) / kSteps, xb = x0 + width * static_cast<float>(k + 1) / kSteps;
    dl->AddRectFilled(ImVec2(xa, y0), ImVec2(xb + 0.5f, y1), IM_COL32(c.r, c.g, c.b, 255));
  }
  dl->AddText(ImVec2(x0 + width, a.y), text, " 1");
  ImGui::Dummy(ImVec2(w0 + width + w1, fs));
}

}  // namespace attnlab::gui
