// The pipeline: scores → logits → weights → output side by side, each with its formula written
// with the current numbers, a colour bar, and clickable cells.
#include "gui/actions.hpp"
#include "gui/heatmap.hpp"
#include "gui/panels.hpp"
#include "gui/text_layout.hpp"
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
  // 1.000 → 1, 0.500 → 0.5: formulas read like the course texts.
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

constexpr const char* kNoBreakSpace = "\u00a0";

struct StageText {
  std::string title, formula, numbers;
  std::string numbers_short;  // when the numbers would take two lines (a narrow output)
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
      t.numbers_short = "q" + std::string(g.dot) + "k over d_k = " + std::to_string(r.d_k);
      break;
    case Stage::Logits: {
      const std::string s = o.scale ? std::string(g.sqrt) + std::to_string(r.d_k) : "1";
      t.formula = std::string("L = S ") + g.divide + " (s" + g.dot + "T)";
      // A no-break space ties each ÷ to its number: a line may end between terms, never after "÷".
      t.numbers = std::string(g.divide) + kNoBreakSpace + "(" + s + " " + g.dot + " " + num(o.temperature, 2) + ") = " + g.divide +
                  kNoBreakSpace + num(r.effective_temperature);
      if (o.mask.kind != MaskKind::None) t.numbers += std::string(", ") + std::string(mask_kind_name(o.mask.kind)) + " " + g.arrow + " " + g.minus + g.infinity;
      break;
    }
    case Stage::Weights:
      // Softmax's row-wise sum is in its numbers line (Σ_k): the formula stays short enough to share
      // its line with the title.
      t.formula = std::string("A = ") + std::string(normalizer_name(o.normalizer)) + "(L)" +
                  (o.normalizer == Normalizer::Softmax ? "" : ", row-wise");
      t.numbers = o.normalizer == Normalizer::Softmax ? std::string("a_ij = e^L_ij ") + g.divide + " " + g.sum + "_k e^L_ik"
                                                      : std::string("each row sums to 1");
      if (o.normalizer == Normalizer::Softmax) t.numbers_short = std::string("e^L_ij ") + g.divide + " " + g.sum + "_k e^L_ik";
      break;
    case Stage::Output:
      t.formula = "O = A V";
      t.numbers = dims + ", o_i = " + g.sum + "_j a_ij v_j";
      t.numbers_short = std::string("o_i = ") + g.sum + "_j a_ij v_j";
      break;
    case Stage::Saturation: break;
  }
  return t;
}

}  // namespace

void draw_pipeline_panel(AppState& state, Services& services) {
  state.pipeline_needs_height = state.pipeline_needs_width = 0;
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
  const int n = static_cast<int>(r.n);
  int cols[4];
  for (int k = 0; k < 4; ++k) cols[k] = static_cast<int>(stages[k] == Stage::Output ? r.d_v : r.m);
  const std::vector<std::string>* col_names[4] = {&kl, &kl, &kl, &vl};
  // The line of numbers under each formula is secondary: smaller in presenter mode, where the
  // headers would otherwise take three lines each out of a 720-pixel-high projector.
  const float numbers_scale = state.view.presenter ? 0.8f : 1.0f;
  const float gap = fs * 1.3f;
  const float bar_h = fs * 2.2f;
  const float row_gap = fs;
  const float max_cell = fs * 6.0f;
  const float row_w = heatmap_row_label_width(ql, n);

  // The smallest cell that still shows every stage's numbers (at the smallest number size), and
  // one that shows them at a comfortable size: small documents only, where numbers can fit at all.
  float readable = 0, comfortable = 0;
  if (n <= 16 && r.m <= 16 && r.d_v <= 16) {
    for (Stage st : stages) {
      const BlockGrid* b = st == Stage::Logits || st == Stage::Weights ? &blocked : nullptr;
      const float widest = widest_number(stage_matrix(r, st), b);  // measured once for both sizes
      readable = std::max(readable, std::ceil(cell_px_for_text(min_number_size(), widest)));
      comfortable = std::max(comfortable, std::ceil(cell_px_for_text(min_number_size() * 1.25f, widest)));
    }
  }

  // The title and formula on one line when they fit, the numbers under them.
  auto title_and_formula_fit = [&](int k, float w) {
    return ImGui::CalcTextSize(texts[k].title.c_str()).x + fs * 0.5f + ImGui::CalcTextSize(texts[k].formula.c_str()).x <= w;
  };
  // The numbers line at its size: the short form when the full one would wrap and the short not.
  auto numbers_text = [&](int k, float w) -> const std::string& {
    const StageText& t = texts[k];
    if (t.numbers_short.empty()) return t.numbers;
    ImGui::SetWindowFontScale(numbers_scale);
    const bool use_short = wrapped_text_height(t.numbers, w) > wrapped_text_height(t.numbers_short, w);
    ImGui::SetWindowFontScale(1.0f);
    return use_short ? t.numbers_short : t.numbers;
  };
  auto header_height = [&](int k, float w) {
    const StageText& t = texts[k];
    float h = fs + style.ItemSpacing.y;
    if (!title_and_formula_fit(k, w)) h += wrapped_text_height(t.formula, w) + style.ItemSpacing.y;
    const std::string& numbers = numbers_text(k, w);
    ImGui::SetWindowFontScale(numbers_scale);
    h += wrapped_text_height(numbers, w) + style.ItemSpacing.y;
    ImGui::SetWindowFontScale(1.0f);
    return h + style.ItemSpacing.y;
  };
  auto labels_height = [&](int k, float cell) { return column_label_layout(*col_names[k], cols[k], cell).height; };
  // The output's title with its formula on one line: the last stage of a row of four is never
  // narrower (its three columns would wrap "output O = A V" into three lines), at most a quarter of
  // the width. The other headers may run on into the gap after their stage.
  const float output_line_full = ImGui::CalcTextSize(texts[3].title.c_str()).x + fs * 0.5f +
                                 ImGui::CalcTextSize(texts[3].formula.c_str()).x + 1.0f;
  const float output_line = std::min(output_line_full, (avail.x - 3 * gap) * 0.25f);

  // One row of four, or two rows of two; one cell size for all four stages, so that a row of the
  // scores lines up with the same row of the weights and the output.
  struct Plan {
    int per_row = 4;
    float cell = 0;            // the cell size drawn
    float cell_w = 0;          // the cell size the width allows
    float label_w[4] = {0, 0, 0, 0};   // 0: no row labels (one row: the scores' serve all four)
    float slot[4] = {0, 0, 0, 0};      // each stage's width
    float header_w[4] = {0, 0, 0, 0};  // its header's wrap width: into the gap after it
    float x[4] = {0, 0, 0, 0};
    float header_h[2] = {0, 0};
    float texture_h = 0;  // > 0: big matrices drawn as textures, this high (labels included)
  };
  // The height of one row of stages [k0, k0 + per_row) with cells of `cell` pixels.
  // The column labels' height of a row of stages: the tallest of its stages' (they share a grid top).
  auto row_labels_height = [&](const Plan& p, int row, float cell) {
    float lh = 0;
    for (int k = row * p.per_row; k < (row + 1) * p.per_row; ++k) lh = std::max(lh, labels_height(k, cell));
    return lh;
  };
  auto row_height = [&](const Plan& p, int row, float cell) {
    if (p.texture_h > 0) return p.header_h[row] + p.texture_h + bar_h;
    return p.header_h[row] + row_labels_height(p, row, cell) + cell * static_cast<float>(n) + bar_h;
  };
  auto finish_headers = [&](Plan& p) {
    p.header_h[0] = p.header_h[1] = 0;
    for (int k = 0; k < 4; ++k) {
      p.header_w[k] = p.slot[k] + (k % p.per_row + 1 < p.per_row ? gap - fs * 0.5f : 0.0f);
      p.header_h[k / p.per_row] = std::max(p.header_h[k / p.per_row], header_height(k, p.header_w[k]));
    }
  };
  auto make_plan = [&](int per_row, bool shared_rows) {
    Plan p;
    p.per_row = per_row;
    const int rows = 4 / per_row;
    for (int k = 0; k < 4; ++k) p.label_w[k] = shared_rows && k > 0 ? 0.0f : row_w;
    if (per_row == 4) {
      float fixed = 3 * gap;
      int all_cols = 0;
      for (int k = 0; k < 4; ++k) {
        fixed += p.label_w[k];
        all_cols += cols[k];
      }
      p.cell_w = (avail.x - fixed) / static_cast<float>(std::max(all_cols, 1));
      if (p.label_w[3] + static_cast<float>(cols[3]) * p.cell_w < output_line) {
        p.cell_w = (avail.x - (fixed - p.label_w[3] + output_line)) / static_cast<float>(std::max(all_cols - cols[3], 1));
      }
      float x = 0;
      for (int k = 0; k < 4; ++k) {
        p.slot[k] = p.label_w[k] + static_cast<float>(cols[k]) * p.cell_w;
        if (k == 3) p.slot[k] = std::max(p.slot[k], output_line);
        p.x[k] = x;
        x += p.slot[k] + gap;
      }
    } else {
      const float slot = (avail.x - gap) * 0.5f;
      p.cell_w = 1e9f;
      for (int k = 0; k < 4; ++k) {
        p.cell_w = std::min(p.cell_w, (slot - p.label_w[k]) / static_cast<float>(std::max(cols[k], 1)));
        p.slot[k] = slot;
        p.x[k] = static_cast<float>(k % 2) * (slot + gap);
      }
    }
    finish_headers(p);
    // Column labels that turn upwards take more height at a given width: shrink until all fits.
    float cell = std::min(p.cell_w, max_cell);
    for (int it = 0; it < 4; ++it) {
      float fixed = static_cast<float>(rows - 1) * row_gap;
      for (int row = 0; row < rows; ++row) fixed += row_height(p, row, cell) - cell * static_cast<float>(n);
      const float by_height = (avail.y - fixed) / static_cast<float>(rows * std::max(n, 1));
      if (by_height >= cell) break;
      cell = by_height;
    }
    p.cell = std::floor(std::max(cell, 1.0f));
    return p;
  };
  const Plan each = make_plan(4, false), shared = make_plan(4, true);
  // Row labels on every stage read best; the scores' alone when that is what makes the numbers
  // readable (the rows line up across the four stages).
  const Plan& one_row = comfortable > 0 && each.cell_w < comfortable && shared.cell_w > each.cell_w ? shared : each;
  Plan plan = one_row;
  const Plan two = make_plan(2, false);
  if (two.cell > plan.cell * 1.15f) plan = two;
  if (static_cast<long>(n) * r.m > kMaxImmediateCells || plan.cell < kMinCellPx) {
    // Textures (heatmap.hpp): each stage takes its share of the width and keeps its aspect ratio
    // inside it; the output (n × d_v) gets a narrower share when d_v < m, never a sliver.
    const float out_share = std::clamp(static_cast<float>(r.d_v) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)), 0.45f, 1.0f);
    // From the plan of that many stages per row already made (its row labels), laid out again.
    auto texture_plan = [&](const Plan& base) {
      Plan p = base;
      const int per_row = p.per_row, rows = 4 / per_row;
      const float unit = (avail.x - static_cast<float>(per_row - 1) * gap) / (per_row == 4 ? 3.0f + out_share : 2.0f);
      for (int k = 0; k < 4; ++k) {
        p.slot[k] = per_row == 4 && stages[k] == Stage::Output ? unit * out_share : unit;
        p.x[k] = static_cast<float>(k % per_row) * (unit + gap);
      }
      finish_headers(p);
      p.texture_h = 1e9f;
      for (int row = 0; row < rows; ++row) {
        const float h = (avail.y - static_cast<float>(rows - 1) * row_gap) / static_cast<float>(rows) - p.header_h[row] - bar_h;
        p.texture_h = std::max(40.0f, std::min(p.texture_h, h));
      }
      p.cell = std::min((unit - row_w) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)),
                        p.texture_h / static_cast<float>(std::max(n, 1)));
      return p;
    };
    plan = texture_plan(each);
    if (const Plan t2 = texture_plan(two); t2.cell > plan.cell * 1.15f) plan = t2;
  }
  {
    // What the host's automatic layout gives this panel next frame: the height a single row can use
    // with cells as wide as the width allows, more than the usual share when the numbers need it,
    // and (presenter mode) the inputs column's width when the numbers need that.
    const float usable = std::min(one_row.cell_w, max_cell);
    state.pipeline_wants_height = row_height(one_row, 0, usable) + fs * 0.5f;
    // (Only when the width lets the numbers in: twelve tokens at 1280 pixels never show them.)
    state.pipeline_needs_height = readable > 0 && usable >= readable
                                      ? row_height(one_row, 0, std::min(usable, std::floor(readable * 1.2f))) + fs * 0.5f
                                      : 0.0f;
    float width = 3 * gap + row_w;  // the scores' row labels only
    for (int k = 0; k < 4; ++k) width += static_cast<float>(cols[k]) * readable;
    // (The full line, not the share of this width: what is needed must not depend on what is given.)
    width += std::max(0.0f, output_line_full - static_cast<float>(cols[3]) * readable);
    state.pipeline_needs_width = readable > 0 ? width + 1.0f : 0.0f;
  }

  const ImVec2 top = ImGui::GetCursorScreenPos();
  HeatmapEvents events[4];
  float row_y = top.y;
  for (int k = 0; k < 4; ++k) {
    const Stage st = stages[k];
    const int row = k / plan.per_row, col = k % plan.per_row;
    if (k > 0 && col == 0) row_y += row_height(plan, row - 1, plan.cell) + row_gap;
    const float w = plan.header_w[k];
    const float x = top.x + plan.x[k];
    const float y = row_y;
    ImGui::SetCursorScreenPos(ImVec2(x, y));
    ImGui::BeginGroup();
    const StageText& t = texts[k];
    ImGui::PushTextWrapPos(x + w - ImGui::GetWindowPos().x + ImGui::GetScrollX());  // window-local
    ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
    ImGui::TextUnformatted(t.title.c_str());
    ImGui::PopStyleColor();
    if (title_and_formula_fit(k, w)) ImGui::SameLine(0, fs * 0.5f);
    text_wrapped("%s", t.formula.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
    const std::string& numbers = numbers_text(k, w);
    ImGui::SetWindowFontScale(numbers_scale);
    text_wrapped_unformatted(numbers);
    ImGui::SetWindowFontScale(1.0f);
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(x, y + plan.header_h[row]));

    HeatmapSpec spec;
    spec.id = stage_name(st);
    spec.stage = st;
    spec.values = &stage_matrix(r, st);
    spec.blocked = st == Stage::Logits || st == Stage::Weights ? &blocked : nullptr;
    if (plan.label_w[k] > 0 || plan.texture_h > 0) spec.row_labels = ql;
    spec.row_label_width = plan.texture_h > 0 ? -1.0f : plan.label_w[k];
    spec.col_labels = *col_names[k];
    spec.map = &stage_colormap(state, st);
    std::tie(spec.lo, spec.hi) = stage_range(state, st, &blocked);
    spec.diverging = stage_is_signed(st);
    // Half a pixel more than the cells need, so that rounding never costs a whole pixel per cell.
    spec.size = ImVec2(plan.label_w[k] + static_cast<float>(cols[k]) * plan.cell + 0.5f,
                       labels_height(k, plan.cell) + static_cast<float>(n) * plan.cell + 0.5f);
    spec.max_cell = plan.cell;
    if (plan.texture_h > 0) {
      spec.size = ImVec2(plan.slot[k], plan.texture_h);
      spec.max_cell = max_cell;
    }
    spec.blocked_text = st == Stage::Logits ? (services.fonts.unicode ? "−∞" : "-inf") : nullptr;
    // The stages of a row share one grid top, whatever their column labels take.
    if (plan.texture_h <= 0) {
      ImGui::SetCursorScreenPos(
          ImVec2(x, y + plan.header_h[row] + row_labels_height(plan, row, plan.cell) - labels_height(k, plan.cell)));
    }
    events[k] = draw_heatmap(state, services, spec);
    const DrawnRect& d = state.drawn[static_cast<size_t>(st)];
    ImGui::SetCursorScreenPos(ImVec2(d.x0, d.y1 + fs * 0.4f));
    // As wide as the heatmap, never wider: a wider bar ran past the window's edge beside a narrow
    // output; the bar fits its labels to its width instead.
    draw_colorbar(state, *spec.map, spec.lo, spec.hi, spec.diverging, std::max(fs * 2, d.x1 - d.x0));
    ImGui::EndGroup();
    if (col + 1 < plan.per_row) {
      // The arrow to the next stage, level with the middle of the heatmap, halfway to the next one.
      const char* arrow = services.glyphs.arrow;
      const ImVec2 as = ImGui::CalcTextSize(arrow);
      const float next = top.x + plan.x[k + 1];
      ImGui::GetWindowDrawList()->AddText(ImVec2((d.x1 + next) * 0.5f - as.x * 0.5f, (d.y0 + d.y1) * 0.5f - as.y * 0.5f),
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
