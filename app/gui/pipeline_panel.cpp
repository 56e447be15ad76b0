// The pipeline: scores → logits → weights → output side by side, each with its formula written
// with the current numbers, a colour bar, and clickable cells.
#include "gui/actions.hpp"
#include "gui/heatmap.hpp"
#include "gui/panels.hpp"
#include "gui/theme.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

std::string num(double v, int decimals = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // 1.000 → 1, 0.500 → 0.5: formulas read like the seeds.
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

struct StageText {
  std::string title, formula, numbers;
};

StageText stage_text(const AppState& state, const Services& services, Stage stage) {
  const Glyphs& g = services.glyphs;
  const Result& r = state.result;
  const Options& o = state.doc.scenario.options;
  const std::string dims = std::to_string(r.n) + g.times + std::to_string(stage == Stage::Output ? r.d_v : r.m);
  StageText t;
  t.title = stage_name(stage);
  switch (stage) {
    case Stage::Scores:
      t.formula = std::string("S = Q K") + g.transpose;
      t.numbers = dims + ", q" + g.dot + "k summed over d_k = " + std::to_string(r.d_k);
      break;
    case Stage::Logits: {
      const std::string s = o.scale ? std::string(g.sqrt) + std::to_string(r.d_k) : "1";
      t.formula = std::string("L = S ") + g.divide + " (s" + g.dot + "T)";
      t.numbers = std::string(g.divide) + " (" + s + " " + g.dot + " " + num(o.temperature, 2) + ") = " + g.divide + " " +
                  num(r.effective_temperature);
      if (o.mask.kind != MaskKind::None) t.numbers += std::string(", ") + std::string(mask_kind_name(o.mask.kind)) + " mask " + g.arrow + " " + g.minus + g.infinity;
      break;
    }
    case Stage::Weights:
      t.formula = std::string("A = ") + std::string(normalizer_name(o.normalizer)) + "(L), row-wise";
      t.numbers = o.normalizer == Normalizer::Softmax ? std::string("a_ij = e^L_ij ") + g.divide + " " + g.sum + "_k e^L_ik"
                                                      : std::string("each row sums to 1");
      break;
    case Stage::Output:
      t.formula = "O = A V";
      t.numbers = dims + ", o_i = " + g.sum + "_j a_ij v_j";
      break;
    case Stage::Saturation: break;
  }
  return t;
}

}  // namespace

void draw_pipeline_panel(AppState& state, Services& services) {
  if (!state.has_result) {
    ImGui::TextWrapped("Nothing computed yet.");
    return;
  }
  const Result& r = state.result;
  const Palette pal = palette(state);
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const BlockGrid blocked = mask_grid(state.doc.scenario.options.mask, r.n, r.m);
  const std::vector<std::string> ql = query_labels(state), kl = key_labels(state);
  std::vector<std::string> vl;
  for (Eigen::Index c = 0; c < r.d_v; ++c) vl.push_back("v" + std::to_string(c + 1));

  const Stage stages[] = {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output};
  // Output is n × d_v: give it a narrower column when d_v < m.
  const float out_share = std::clamp(static_cast<float>(r.d_v) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)), 0.45f, 1.0f);
  const float gap = fs * 1.6f;
  const float unit = (avail.x - 3 * gap) / (3.0f + out_share);
  const float header_h = fs * 3.6f;
  const float bar_h = fs * 2.2f;
  const float heat_h = std::max(40.0f, avail.y - header_h - bar_h);
  const ImVec2 top = ImGui::GetCursorScreenPos();
  HeatmapEvents events[4];

  for (int k = 0; k < 4; ++k) {
    const Stage st = stages[k];
    const float w = st == Stage::Output ? unit * out_share : unit;
    const float x = top.x + static_cast<float>(k) * (unit + gap);
    ImGui::SetCursorScreenPos(ImVec2(x, top.y));
    ImGui::BeginGroup();
    const StageText t = stage_text(state, services, st);
    ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
    ImGui::TextUnformatted(t.title.c_str());
    ImGui::PopStyleColor();
    ImGui::SameLine();
    ImGui::TextUnformatted(t.formula.c_str());
    ImGui::PushTextWrapPos(x + w);
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    ImGui::TextWrapped("%s", t.numbers.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(x, top.y + header_h));

    HeatmapSpec spec;
    spec.id = stage_name(st);
    spec.stage = st;
    spec.values = &stage_matrix(r, st);
    spec.blocked = st == Stage::Logits || st == Stage::Weights ? &blocked : nullptr;
    spec.row_labels = ql;
    spec.col_labels = st == Stage::Output ? vl : kl;
    spec.map = &stage_colormap(state, st);
    std::tie(spec.lo, spec.hi) = stage_range(state, st, &blocked);
    spec.diverging = stage_is_signed(st);
    spec.size = ImVec2(w, heat_h);
    spec.max_cell = fs * 6.0f;
    spec.blocked_text = st == Stage::Logits ? (services.fonts.unicode ? "−∞" : "-inf") : nullptr;
    events[k] = draw_heatmap(state, services, spec);
    const DrawnRect& d = state.drawn[static_cast<size_t>(st)];
    ImGui::SetCursorScreenPos(ImVec2(d.x0, d.y1 + fs * 0.4f));
    draw_colorbar(state, *spec.map, spec.lo, spec.hi, spec.diverging, std::max(40.0f, d.x1 - d.x0));
    ImGui::EndGroup();
    if (k < 3) {
      // The arrow between two stages, level with the middle of the heatmaps.
      const char* arrow = services.glyphs.arrow;
      const ImVec2 as = ImGui::CalcTextSize(arrow);
      const float gx = x + w + (gap - as.x) * 0.5f;
      const float gy = (d.y0 + d.y1) * 0.5f - as.y * 0.5f;
      ImGui::GetWindowDrawList()->AddText(ImVec2(gx, gy), pal.text_dim, arrow);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + avail.y));
  ImGui::Dummy(ImVec2(1, 1));

  const bool shift = ImGui::GetIO().KeyShift;
  for (const HeatmapEvents& ev : events) {
    if (ev.hovered.valid()) state.hovered = ev.hovered;
    if (!ev.clicked.valid()) continue;
    state.selected = ev.clicked;
    const bool maskable = ev.clicked.stage != Stage::Output;
    if (maskable && (shift || state.doc.scenario.options.mask.kind == MaskKind::Custom)) {
      actions::toggle_blocked(state, ev.clicked.row, ev.clicked.col);
    }
  }
}

}  // namespace attnlab::gui
