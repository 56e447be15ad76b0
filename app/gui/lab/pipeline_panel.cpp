// The pipeline: scores → logits → weights → output side by side, each with its formula written
// with the current numbers, a colour bar, and clickable cells.
#include "gui/lab/pipeline_panel.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/lab/streamed_pipeline_panel.hpp"
#include "gui/state/view_style.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/text_layout.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>

// Index of this file:
// [SECTION] Stage texts: each stage's title, formula and numbers line
// [SECTION] Plan: where the four stages go (one row of four or two of two, cells or textures)
// [SECTION] Draw: the stages where the plan puts them, and what a click does

namespace attnlab::gui {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Stage texts
// ---------------------------------------------------------------------------------------------

constexpr const char* kNoBreakSpace = "\u00a0";

struct StageText {
  std::string title, formula, numbers;
  std::string numbers_short;  // when the numbers would take two lines (a narrow output)
};

StageText stage_text(const ViewContext& ctx, Stage stage) {
  const Glyphs& g = ctx.services.glyphs;
  const Result& r = ctx.results.result;
  const Options& o = ctx.shown().options;
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
      t.numbers = std::string(g.divide) + kNoBreakSpace + "(" + s + " " + g.dot + " " + trimmed_decimals(o.temperature, 2) + ") = " + g.divide +
                  kNoBreakSpace + trimmed_decimals(r.effective_temperature, 3);
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
    case Stage::Saturation:
    case Stage::Pipeline: break;
  }
  return t;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Plan
// ---------------------------------------------------------------------------------------------

// What the plan is made from, measured once a frame: the four stages' texts and sizes, the room.
struct Stages {
  const Result* r = nullptr;
  Stage stage[4] = {Stage::Scores, Stage::Logits, Stage::Weights, Stage::Output};
  StageText text[4];
  int n = 0;
  int cols[4] = {0, 0, 0, 0};
  std::vector<std::string> ql, kl, vl;  // query, key and output-column labels
  const std::vector<std::string>* col_names[4] = {&kl, &kl, &kl, &vl};
  ImVec2 avail;
  float fs = 0;
  // The line of numbers under each formula is secondary: smaller in presenter mode (never below the
  // legible size), where the headers would otherwise take three lines each out of a 720-pixel-high
  // projector.
  float numbers_scale = 1;
  float gap = 0, bar_h = 0, row_gap = 0, max_cell = 0;
  float row_w = 0;  // the query labels' width
  // The smallest cell that still shows every stage's numbers (at the smallest number size), and
  // one that shows them at a comfortable size: small documents only, where numbers can fit at all.
  float readable = 0, comfortable = 0;
  // The output's title with its formula on one line: the last stage of a row of four is never
  // narrower (its three columns would wrap "output O = A V" into three lines), at most a quarter of
  // the width. The other headers may run on into the gap after their stage.
  float output_line_full = 0, output_line = 0;

  Stages() = default;
  Stages(const Stages&) = delete;  // col_names point into this object
};

void measure_stages(Stages& S, const ViewContext& ctx) {
  const Result& r = ctx.results.result;
  S.r = &r;
  S.fs = ImGui::GetFontSize();
  S.avail = ImGui::GetContentRegionAvail();
  const Scenario& shown = ctx.shown();
  S.ql = query_labels(shown);
  S.kl = key_labels(shown);
  // With RoPE on, each row and column names the position it was rotated by.
  if (const auto& rope = shown.options.rope) {
    const auto at = [](std::vector<std::string>& labels, const std::vector<std::int64_t>& given) {
      const std::vector<std::int64_t> p = rope_positions(given, static_cast<Eigen::Index>(labels.size()));
      for (size_t k = 0; k < labels.size(); ++k) labels[k] += " @" + std::to_string(p[k]);
    };
    at(S.ql, rope->query_positions);
    at(S.kl, rope->key_positions);
  }
  for (Eigen::Index c = 0; c < r.d_v; ++c) S.vl.push_back("v" + std::to_string(c + 1));
  for (int k = 0; k < 4; ++k) {
    S.text[k] = stage_text(ctx, S.stage[k]);
    S.cols[k] = static_cast<int>(S.stage[k] == Stage::Output ? r.d_v : r.m);
  }
  S.n = static_cast<int>(r.n);
  S.numbers_scale = ctx.view.presenter ? std::max(0.8f, smallest_text() / S.fs) : 1.0f;
  S.gap = S.fs * 1.3f;
  S.bar_h = S.fs * 2.2f;
  S.row_gap = S.fs;
  S.max_cell = S.fs * 6.0f;
  S.row_w = heatmap_row_label_width(S.ql, S.n);
  if (S.n <= 16 && r.m <= 16 && r.d_v <= 16) {
    for (Stage st : S.stage) {
      const BlockGrid* b = st == Stage::Logits || st == Stage::Weights ? &ctx.results.blocked : nullptr;
      const float widest = widest_number(stage_matrix(r, st), b);  // measured once for both sizes
      S.readable = std::max(S.readable, std::ceil(cell_px_for_text(min_number_size(), widest)));
      S.comfortable = std::max(S.comfortable, std::ceil(cell_px_for_text(min_number_size() * 1.25f, widest)));
    }
  }
  S.output_line_full = ImGui::CalcTextSize(S.text[3].title.c_str()).x + S.fs * 0.5f + ImGui::CalcTextSize(S.text[3].formula.c_str()).x + 1.0f;
  S.output_line = std::min(S.output_line_full, (S.avail.x - 3 * S.gap) * 0.25f);
}

// The title and formula on one line when they fit, the numbers under them.
bool title_and_formula_fit(const Stages& S, int k, float w) {
  return ImGui::CalcTextSize(S.text[k].title.c_str()).x + S.fs * 0.5f + ImGui::CalcTextSize(S.text[k].formula.c_str()).x <= w;
}

// The numbers line at its size: the short form when the full one would wrap and the short not.
const std::string& numbers_text(const Stages& S, int k, float w) {
  const StageText& t = S.text[k];
  if (t.numbers_short.empty()) return t.numbers;
  ImGui::SetWindowFontScale(S.numbers_scale);
  const bool use_short = wrapped_text_height(t.numbers, w) > wrapped_text_height(t.numbers_short, w);
  ImGui::SetWindowFontScale(1.0f);
  return use_short ? t.numbers_short : t.numbers;
}

float header_height(const Stages& S, int k, float w) {
  const ImGuiStyle& style = ImGui::GetStyle();
  float h = S.fs + style.ItemSpacing.y;
  if (!title_and_formula_fit(S, k, w)) h += wrapped_text_height(S.text[k].formula, w) + style.ItemSpacing.y;
  const std::string& numbers = numbers_text(S, k, w);
  ImGui::SetWindowFontScale(S.numbers_scale);
  h += wrapped_text_height(numbers, w) + style.ItemSpacing.y;
  ImGui::SetWindowFontScale(1.0f);
  return h + style.ItemSpacing.y;
}

float labels_height(const Stages& S, int k, float cell) { return column_label_layout(*S.col_names[k], S.cols[k], cell).height; }

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

// The column labels' height of a row of stages: the tallest of its stages' (they share a grid top).
float row_labels_height(const Stages& S, const Plan& p, int row, float cell) {
  float lh = 0;
  for (int k = row * p.per_row; k < (row + 1) * p.per_row; ++k) lh = std::max(lh, labels_height(S, k, cell));
  return lh;
}

// The height of one row of stages with cells of `cell` pixels.
float row_height(const Stages& S, const Plan& p, int row, float cell) {
  if (p.texture_h > 0) return p.header_h[row] + p.texture_h + S.bar_h;
  return p.header_h[row] + row_labels_height(S, p, row, cell) + cell * static_cast<float>(S.n) + S.bar_h;
}

void finish_headers(const Stages& S, Plan& p) {
  p.header_h[0] = p.header_h[1] = 0;
  for (int k = 0; k < 4; ++k) {
    p.header_w[k] = p.slot[k] + (k % p.per_row + 1 < p.per_row ? S.gap - S.fs * 0.5f : 0.0f);
    p.header_h[k / p.per_row] = std::max(p.header_h[k / p.per_row], header_height(S, k, p.header_w[k]));
  }
}

// The widths of one row of four: the output never narrower than its title line.
void plan_one_row(const Stages& S, Plan& p) {
  float fixed = 3 * S.gap;
  int all_cols = 0;
  for (int k = 0; k < 4; ++k) {
    fixed += p.label_w[k];
    all_cols += S.cols[k];
  }
  p.cell_w = (S.avail.x - fixed) / static_cast<float>(std::max(all_cols, 1));
  if (p.label_w[3] + static_cast<float>(S.cols[3]) * p.cell_w < S.output_line) {
    p.cell_w = (S.avail.x - (fixed - p.label_w[3] + S.output_line)) / static_cast<float>(std::max(all_cols - S.cols[3], 1));
  }
  float x = 0;
  for (int k = 0; k < 4; ++k) {
    p.slot[k] = p.label_w[k] + static_cast<float>(S.cols[k]) * p.cell_w;
    if (k == 3) p.slot[k] = std::max(p.slot[k], S.output_line);
    p.x[k] = x;
    x += p.slot[k] + S.gap;
  }
}

Plan make_plan(const Stages& S, int per_row, bool shared_rows) {
  Plan p;
  p.per_row = per_row;
  const int rows = 4 / per_row;
  for (int k = 0; k < 4; ++k) p.label_w[k] = shared_rows && k > 0 ? 0.0f : S.row_w;
  if (per_row == 4) {
    plan_one_row(S, p);
  } else {
    const float slot = (S.avail.x - S.gap) * 0.5f;
    p.cell_w = 1e9f;
    for (int k = 0; k < 4; ++k) {
      p.cell_w = std::min(p.cell_w, (slot - p.label_w[k]) / static_cast<float>(std::max(S.cols[k], 1)));
      p.slot[k] = slot;
      p.x[k] = static_cast<float>(k % 2) * (slot + S.gap);
    }
  }
  finish_headers(S, p);
  // Column labels that turn upwards take more height at a given width: shrink until all fits.
  float cell = std::min(p.cell_w, S.max_cell);
  for (int it = 0; it < 4; ++it) {
    float fixed = static_cast<float>(rows - 1) * S.row_gap;
    for (int row = 0; row < rows; ++row) fixed += row_height(S, p, row, cell) - cell * static_cast<float>(S.n);
    const float by_height = (S.avail.y - fixed) / static_cast<float>(rows * std::max(S.n, 1));
    if (by_height >= cell) break;
    cell = by_height;
  }
  p.cell = std::floor(std::max(cell, 1.0f));
  return p;
}

// Textures (heatmap.hpp): each stage takes its share of the width and keeps its aspect ratio inside
// it; the output (n × d_v) gets a narrower share when d_v < m, never a sliver. Laid out again from
// the plan of that many stages per row already made (its row labels).
Plan texture_plan(const Stages& S, const Plan& base) {
  const Result& r = *S.r;
  const float out_share = std::clamp(static_cast<float>(r.d_v) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)), 0.45f, 1.0f);
  Plan p = base;
  const int per_row = p.per_row, rows = 4 / per_row;
  const float unit = (S.avail.x - static_cast<float>(per_row - 1) * S.gap) / (per_row == 4 ? 3.0f + out_share : 2.0f);
  for (int k = 0; k < 4; ++k) {
    p.slot[k] = per_row == 4 && S.stage[k] == Stage::Output ? unit * out_share : unit;
    p.x[k] = static_cast<float>(k % per_row) * (unit + S.gap);
  }
  finish_headers(S, p);
  p.texture_h = 1e9f;
  for (int row = 0; row < rows; ++row) {
    const float h = (S.avail.y - static_cast<float>(rows - 1) * S.row_gap) / static_cast<float>(rows) - p.header_h[row] - S.bar_h;
    p.texture_h = std::max(40.0f, std::min(p.texture_h, h));
  }
  p.cell = std::min((unit - S.row_w) / static_cast<float>(std::max<Eigen::Index>(r.m, 1)), p.texture_h / static_cast<float>(std::max(S.n, 1)));
  return p;
}

// The plan drawn, and the one-row plan the host's layout is told about.
struct Plans {
  Plan drawn, one_row;
};

Plans choose_plan(const Stages& S) {
  const Plan each = make_plan(S, 4, false), shared = make_plan(S, 4, true);
  // Row labels on every stage read best; the scores' alone when that is what makes the numbers
  // readable (the rows line up across the four stages).
  Plans out;
  out.one_row = S.comfortable > 0 && each.cell_w < S.comfortable && shared.cell_w > each.cell_w ? shared : each;
  out.drawn = out.one_row;
  const Plan two = make_plan(S, 2, false);
  if (two.cell > out.drawn.cell * 1.15f) out.drawn = two;
  if (static_cast<long>(S.n) * S.r->m > kMaxImmediateCells || out.drawn.cell < kMinCellPx) {
    out.drawn = texture_plan(S, each);
    if (const Plan t2 = texture_plan(S, two); t2.cell > out.drawn.cell * 1.15f) out.drawn = t2;
  }
  return out;
}

// What the host's automatic layout gives this panel next frame: the height a single row can use
// with cells as wide as the width allows, more than the usual share when the numbers need it, and
// (presenter mode) the inputs column's width when the numbers need that.
void report_needs(LayoutUi& layout, const Stages& S, const Plan& one_row) {
  const float usable = std::min(one_row.cell_w, S.max_cell);
  layout.pipeline_wants_height = row_height(S, one_row, 0, usable) + S.fs * 0.5f;
  // (Only when the width lets the numbers in: twelve tokens at 1280 pixels never show them.)
  layout.pipeline_needs_height = S.readable > 0 && usable >= S.readable
                                    ? row_height(S, one_row, 0, std::min(usable, std::floor(S.readable * 1.2f))) + S.fs * 0.5f
                                    : 0.0f;
  float width = 3 * S.gap + S.row_w;  // the scores' row labels only
  for (int k = 0; k < 4; ++k) width += static_cast<float>(S.cols[k]) * S.readable;
  // (The full line, not the share of this width: what is needed must not depend on what is given.)
  width += std::max(0.0f, S.output_line_full - static_cast<float>(S.cols[3]) * S.readable);
  layout.pipeline_needs_width = S.readable > 0 ? width + 1.0f : 0.0f;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Draw
// ---------------------------------------------------------------------------------------------

// Title, formula and numbers line of stage k, wrapped at `w` from (x, y).
void draw_stage_header(const ViewContext& ctx, const Stages& S, int k, float x, float w) {
  const Palette pal = palette(ctx.view);
  const StageText& t = S.text[k];
  ImGui::PushTextWrapPos(x + w - ImGui::GetWindowPos().x + ImGui::GetScrollX());  // window-local
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::TextUnformatted(t.title.c_str());
  ImGui::PopStyleColor();
  if (title_and_formula_fit(S, k, w)) ImGui::SameLine(0, S.fs * 0.5f);
  text_wrapped("%s", t.formula.c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  const std::string& numbers = numbers_text(S, k, w);
  ImGui::SetWindowFontScale(S.numbers_scale);
  text_wrapped_unformatted(numbers);
  ImGui::SetWindowFontScale(1.0f);
  ImGui::PopStyleColor();
  ImGui::PopTextWrapPos();
}

HeatmapSpec stage_spec(const ViewContext& ctx, const Stages& S, const Plan& plan, int k) {
  const Stage st = S.stage[k];
  HeatmapSpec spec;
  spec.id = stage_name(st).data();
  spec.stage = st;
  spec.values = &stage_matrix(*S.r, st);
  spec.blocked = st == Stage::Logits || st == Stage::Weights ? &ctx.results.blocked : nullptr;
  if (plan.label_w[k] > 0 || plan.texture_h > 0) spec.row_labels = S.ql;
  spec.row_label_width = plan.texture_h > 0 ? -1.0f : plan.label_w[k];
  spec.col_labels = *S.col_names[k];
  spec.map = &stage_colormap(ctx.view, st);
  std::tie(spec.lo, spec.hi) = stage_range(ctx.results, st);
  spec.diverging = stage_is_signed(st);
  // Half a pixel more than the cells need, so that rounding never costs a whole pixel per cell.
  spec.size = ImVec2(plan.label_w[k] + static_cast<float>(S.cols[k]) * plan.cell + 0.5f,
                     labels_height(S, k, plan.cell) + static_cast<float>(S.n) * plan.cell + 0.5f);
  spec.max_cell = plan.cell;
  if (plan.texture_h > 0) {
    spec.size = ImVec2(plan.slot[k], plan.texture_h);
    spec.max_cell = S.max_cell;
  }
  spec.blocked_text = st == Stage::Logits ? minus_infinity(ctx.services.fonts.unicode) : nullptr;
  return spec;
}

// One stage at (x, y): its header, heatmap and colour bar.
HeatmapEvents draw_stage(const ViewContext& ctx, PipelineUi& pipeline, Commands& out, const Stages& S, const Plan& plan, int k,
                         float x, float y) {
  const int row = k / plan.per_row;
  ImGui::SetCursorScreenPos(ImVec2(x, y));
  ImGui::BeginGroup();
  draw_stage_header(ctx, S, k, x, plan.header_w[k]);
  ImGui::SetCursorScreenPos(ImVec2(x, y + plan.header_h[row]));
  const HeatmapSpec spec = stage_spec(ctx, S, plan, k);
  // The stages of a row share one grid top, whatever their column labels take.
  if (plan.texture_h <= 0) {
    ImGui::SetCursorScreenPos(ImVec2(x, y + plan.header_h[row] + row_labels_height(S, plan, row, plan.cell) - labels_height(S, k, plan.cell)));
  }
  const HeatmapEvents ev = draw_heatmap(spec, heatmap_style(ctx, pipeline.selected));
  keep_drawn(pipeline, spec.stage, ev);
  if (ev.menu != HeatmapMenu::None) out.push_back(StageMenu{spec.stage, ev.menu});
  const DrawnRect& d = ev.drawn;
  ImGui::SetCursorScreenPos(ImVec2(d.x0, d.y1 + S.fs * 0.4f));
  // As wide as the heatmap, never wider: a wider bar ran past the window's edge beside a narrow
  // output; the bar fits its labels to its width instead.
  draw_colorbar(palette(ctx.view), *spec.map, spec.lo, spec.hi, spec.diverging, std::max(S.fs * 2, d.x1 - d.x0));
  ImGui::EndGroup();
  return ev;
}

// The arrow from stage k to the next, level with the middle of its heatmap, halfway to the next.
void draw_arrow(const ViewContext& ctx, const DrawnRect& d, float next_x) {
  const char* arrow = ctx.services.glyphs.arrow;
  const ImVec2 as = ImGui::CalcTextSize(arrow);
  ImGui::GetWindowDrawList()->AddText(ImVec2((d.x1 + next_x) * 0.5f - as.x * 0.5f, (d.y0 + d.y1) * 0.5f - as.y * 0.5f),
                                      palette(ctx.view).text_dim, arrow);
}

// Hover feeds the explain panel; a click selects (and, shift or a custom mask, blocks) the cell.
// A cell of a result the document has moved on from (an edit earlier in this frame) only selects:
// its row and column may name another cell of the document, or none.
void handle_events(const ViewContext& ctx, PipelineUi& pipeline, Commands& out, const HeatmapEvents (&events)[4]) {
  const bool shift = ImGui::GetIO().KeyShift;
  for (const HeatmapEvents& ev : events) {
    if (ev.hovered.valid()) pipeline.hovered = ev.hovered;
    if (!ev.clicked.valid()) continue;
    pipeline.selected = ev.clicked;
    out.push_back(FocusPanel{"Explain a cell"});
    const bool maskable = ev.clicked.stage != Stage::Output;
    if (maskable && ctx.result_is_current() && (shift || ctx.doc.scenario.options.mask.kind == MaskKind::Custom)) {
      out.push_back(edits::toggle_blocked(ev.clicked.row, ev.clicked.col));
    }
  }
}

}  // namespace

void draw_pipeline_panel(const ViewContext& ctx, PipelineUi& pipeline, LayoutUi& layout, Commands& out) {
  layout.pipeline_needs_height = layout.pipeline_needs_width = 0;
  if (draw_compute_progress(ctx, out)) return;
  if (!ctx.results.has_result) {
    text_wrapped("Nothing computed yet.");
    return;
  }
  if (!ctx.results.result.dense) {
    draw_streaming_view(ctx, pipeline, layout, out);
    return;
  }
  // Any ±∞ in the stages below comes with its reason, above them (engine/attention/overflow_notes.hpp).
  if (!ctx.results.overflow.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, palette(ctx.view).warning);
    for (const std::string& note : ctx.results.overflow.sentences) text_wrapped("%s", note.c_str());
    ImGui::PopStyleColor();
  }
  Stages S;
  measure_stages(S, ctx);
  const Plans plans = choose_plan(S);
  report_needs(layout, S, plans.one_row);
  const Plan& plan = plans.drawn;

  const ImVec2 top = ImGui::GetCursorScreenPos();
  HeatmapEvents events[4];
  float row_y = top.y;
  for (int k = 0; k < 4; ++k) {
    const int row = k / plan.per_row, col = k % plan.per_row;
    if (k > 0 && col == 0) row_y += row_height(S, plan, row - 1, plan.cell) + S.row_gap;
    events[k] = draw_stage(ctx, pipeline, out, S, plan, k, top.x + plan.x[k], row_y);
    if (col + 1 < plan.per_row) draw_arrow(ctx, events[k].drawn, top.x + plan.x[k + 1]);
  }
  ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + S.avail.y));
  ImGui::Dummy(ImVec2(1, 1));
  handle_events(ctx, pipeline, out, events);
}

}  // namespace attnlab::gui
