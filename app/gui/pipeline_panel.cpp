// The pipeline: scores → logits → weights → output side by side, each with its formula written
// with the current numbers, a colour bar, and clickable cells.
#include "gui/actions.hpp"
#include "gui/heatmap.hpp"
#include "gui/panels.hpp"
#include "gui/theme.hpp"
#include "gui/wrapped_text.hpp"

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

constexpr const char* kNoBreakSpace = "\u00a0";

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
      // A no-break space ties each ÷ to its number: a line may end between terms, never after "÷".
      t.numbers = std::string(g.divide) + kNoBreakSpace + "(" + s + " " + g.dot + " " + num(o.temperature, 2) + ") = " + g.divide +
                  kNoBreakSpace + num(r.effective_temperature);
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
  if (draw_compute_progress(state, services)) return;
  if (!state.has_result) {
    text_wrapped("Nothing computed yet.");
    return;
  }
  if (!state.result.dense) {
    draw_streaming_view(state, services);
    return;
  }
  const Result& r = state.result;
  const Palette pal = palette(state);
  const ImGuiStyle& style = ImGui::GetStyle();
  const float fs = ImGui::GetFontSize();
  // Any ±∞ in the stages below comes with its reason, above them (engine/overflow_notes.hpp).
  if (!state.overflow.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    for (const std::string& note : state.overflow.sentences) text_wrapped("%s", note.c_str());
    ImGui::PopStyleColor();
  }
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const BlockGrid& blocked = state.blocked;
  const std::vector<std::string> ql = query_labels(state), kl = key_labels(state);
  std::vector<std::string> vl;
  for (Eigen::Index c = 0; c < r.d_v; ++c) vl.push_back("v" + std::to_string(c + 1));

  const Stage stages[] = {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output};
  StageText texts[4];
  for (int k = 0; k < 4; ++k) texts[k] = stage_text(state, services, stages[k]);
  // Output is n × d_v: give it a narrower column when d_v < m.
  const float out_share = std::clamp(static_cast<float>(r.d_v) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)), 0.45f, 1.0f);
  const float gap = fs * 1.6f;
  const float bar_h = fs * 2.2f;
  const float label_w = fs * 2.5f;

  // One row of four, or two rows of two: whichever gives the bigger cells.
  struct Plan {
    int per_row = 4;
    float unit = 0, row_h = 0, cell = 0;
    float header_h[2] = {0, 0};
  };
  auto header_height = [&](int k, float w) {
    const StageText& t = texts[k];
    const float title = ImGui::CalcTextSize(t.title.c_str()).y;
    const float formula = wrapped_text_height(t.formula, w);
    const float numbers = wrapped_text_height(t.numbers, w);
    return title + formula + numbers + style.ItemSpacing.y * 4;
  };
  auto make_plan = [&](int per_row) {
    Plan p;
    p.per_row = per_row;
    const int rows = 4 / per_row;
    const float shares = per_row == 4 ? 3.0f + out_share : 2.0f;
    p.unit = (avail.x - static_cast<float>(per_row - 1) * gap) / shares;
    p.row_h = (avail.y - static_cast<float>(rows - 1) * fs) / static_cast<float>(rows);
    p.cell = 1e9f;
    for (int k = 0; k < 4; ++k) {
      const int row = k / per_row;
      const float w = stages[k] == Stage::Output && per_row == 4 ? p.unit * out_share : p.unit;
      p.header_h[row] = std::max(p.header_h[row], header_height(k, w));
    }
    for (int row = 0; row < rows; ++row) {
      const float heat_h = p.row_h - p.header_h[row] - bar_h;
      p.cell = std::min(p.cell, std::min((p.unit - label_w) / static_cast<float>(r.m), heat_h / static_cast<float>(r.n)));
    }
    return p;
  };
  Plan plan = make_plan(4);
  const Plan two = make_plan(2);
  if (two.cell > plan.cell * 1.15f) plan = two;
  {
    // The height a single row would need with width-limited cells: the host gives the rest of the
    // column to the explain/saturation tabs.
    const float cell_w = std::min(fs * 6.0f, (plan.unit - label_w) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)));
    state.pipeline_wants_height = plan.per_row == 4 ? make_plan(4).header_h[0] + fs * 1.5f +
                                                          cell_w * static_cast<float>(r.n) + bar_h + fs
                                                    : 0.0f;
  }

  const ImVec2 top = ImGui::GetCursorScreenPos();
  HeatmapEvents events[4];
  for (int k = 0; k < 4; ++k) {
    const Stage st = stages[k];
    const int row = k / plan.per_row, col = k % plan.per_row;
    const float w = st == Stage::Output && plan.per_row == 4 ? plan.unit * out_share : plan.unit;
    const float x = top.x + static_cast<float>(col) * (plan.unit + gap);
    const float y = top.y + static_cast<float>(row) * (plan.row_h + fs);
    ImGui::SetCursorScreenPos(ImVec2(x, y));
    ImGui::BeginGroup();
    const StageText& t = texts[k];
    ImGui::PushTextWrapPos(x + w - ImGui::GetWindowPos().x + ImGui::GetScrollX());  // window-local
    ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
    ImGui::TextUnformatted(t.title.c_str());
    ImGui::PopStyleColor();
    text_wrapped("%s", t.formula.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    text_wrapped("%s", t.numbers.c_str());
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(x, y + plan.header_h[row]));

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
    spec.size = ImVec2(w, std::max(40.0f, plan.row_h - plan.header_h[row] - bar_h));
    spec.max_cell = fs * 6.0f;
    spec.blocked_text = st == Stage::Logits ? (services.fonts.unicode ? "−∞" : "-inf") : nullptr;
    events[k] = draw_heatmap(state, services, spec);
    const DrawnRect& d = state.drawn[static_cast<size_t>(st)];
    ImGui::SetCursorScreenPos(ImVec2(d.x0, d.y1 + fs * 0.4f));
    // As wide as the heatmap, never wider: a wider bar ran past the window's edge beside a narrow
    // output; the bar fits its labels to its width instead.
    draw_colorbar(state, *spec.map, spec.lo, spec.hi, spec.diverging, std::max(fs * 2, d.x1 - d.x0));
    ImGui::EndGroup();
    if (col + 1 < plan.per_row) {
      // The arrow to the next stage, level with the middle of the heatmap.
      const char* arrow = services.glyphs.arrow;
      const ImVec2 as = ImGui::CalcTextSize(arrow);
      ImGui::GetWindowDrawList()->AddText(ImVec2(x + w + (gap - as.x) * 0.5f, (d.y0 + d.y1) * 0.5f - as.y * 0.5f),
                                          pal.text_dim, arrow);
    }
  }
  ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + avail.y));
  ImGui::Dummy(ImVec2(1, 1));

  const bool shift = ImGui::GetIO().KeyShift;
  for (const HeatmapEvents& ev : events) {
    if (ev.hovered.valid()) state.hovered = ev.hovered;
    if (!ev.clicked.valid()) continue;
    state.selected = ev.clicked;
    state.focus_panel = "Explain a cell";
    const bool maskable = ev.clicked.stage != Stage::Output;
    if (maskable && (shift || state.doc.scenario.options.mask.kind == MaskKind::Custom)) {
      actions::toggle_blocked(state, ev.clicked.row, ev.clicked.col);
    }
  }
}

}  // namespace attnlab::gui
