// Multi-head attention (Section 2.3's note, Exercise 2.3.3): X, per-head W_Q/W_K/W_V (seeded random,
// editable), a grid of per-head attention maps, concat-then-W_O beside the sum of per-head slabs,
// and the switch that makes every head share its projections.
#include "gui/lessons/multi_head_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

void ensure_weights(MultiHeadUi& ui, Eigen::Index d_model) {
  if (ui.heads < 1 || d_model % ui.heads != 0) ui.heads = 1;
  char key[96];
  std::snprintf(key, sizeof key, "%lld/%d/%d/%d", static_cast<long long>(d_model), ui.heads, ui.seed, ui.share ? 1 : 0);
  if (ui.weights_key == key) return;
  ui.weights = random_multihead_weights(d_model, ui.heads, static_cast<unsigned long long>(std::max(0, ui.seed)), ui.share);
  ui.weights_key = key;
  ui.weights_edited = false;
  ++ui.weights_version;
  ui.edit_head = std::min(ui.edit_head, ui.heads - 1);
}

// The heads (MultiHeadUi::run) of the document and the weights as they are now.
void run_heads(MultiHeadUi& ui, const ViewContext& ctx) {
  if (ui.run_doc_version == ctx.doc_version && ui.run_weights_version == ui.weights_version) return;
  ui.run_doc_version = ctx.doc_version;
  ui.run_weights_version = ui.weights_version;
  ui.run_error.clear();
  try {
    ui.run = multi_head_attention(ctx.doc.scenario.Q, ui.weights, ctx.doc.scenario.options, *ctx.services.backend);
  } catch (const std::exception& e) {  // bad weights, or the backend failed
    ui.run = MultiHeadResult{};
    ui.run_error = e.what();
  }
}

void weight_editor(MultiHeadUi& ui) {
  MultiHeadWeights& w = ui.weights;
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 5);
  ImGui::SliderInt("head", &ui.edit_head, 0, w.heads() - 1, "%d");
  ImGui::SameLine();
  for (const auto& [which, label] : {std::pair{HeadMatrix::WQ, "W_Q"}, std::pair{HeadMatrix::WK, "W_K"}, std::pair{HeadMatrix::WV, "W_V"}}) {
    ImGui::SameLine();
    if (ImGui::RadioButton(label, ui.edit_matrix == which)) ui.edit_matrix = which;
  }
  std::vector<Matrix>& list = ui.edit_matrix == HeadMatrix::WQ ? w.W_Q : ui.edit_matrix == HeadMatrix::WK ? w.W_K : w.W_V;
  Matrix& M = list[static_cast<size_t>(ui.edit_head)];
  const float cell_w = ImGui::GetFontSize() * 3.6f;
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (j) ImGui::SameLine();
      ImGui::PushID(static_cast<int>(i * M.cols() + j));
      ImGui::SetNextItemWidth(cell_w);
      float v = M(i, j);
      if (ImGui::DragFloat("##w", &v, 0.01f, -10.0f, 10.0f, widget_decimals(2).c_str()) && std::isfinite(v)) {
        M(i, j) = v;
        ui.weights_edited = true;
        ++ui.weights_version;
        // Shared projections stay shared: the edit goes to every head.
        if (ui.share)
          for (auto& other : list) other(i, j) = v;
      }
      ImGui::PopID();
    }
  }
}

// Controls: h (a divisor of d_model), the seed, and sharing.
void draw_controls(MultiHeadUi& ui, Eigen::Index d_model) {
  const float fs = ImGui::GetFontSize();
  ImGui::AlignTextToFramePadding();  // on the radio buttons' baseline, not above it
  ImGui::TextUnformatted("heads h:");
  for (int h = 1; h <= d_model && h <= 16; ++h) {
    if (d_model % h) continue;
    ImGui::SameLine();
    if (ImGui::RadioButton(std::to_string(h).c_str(), ui.heads == h)) ui.heads = h;
  }
  ImGui::SameLine(0, fs * 1.5f);
  ImGui::SetNextItemWidth(fs * 5);
  ImGui::InputInt("seed", &ui.seed);
  ui.seed = std::max(0, ui.seed);
  ImGui::SameLine(0, fs * 1.5f);
  ImGui::Checkbox("share W_Q, W_K, W_V", &ui.share);
}

// What the view draws of one result, and the sizes it lays them out with: one row of per-head maps,
// then what the two readings of W_O give.
struct MultiHeadLayout {
  MultiHeadUi& ui;
  const ViewContext& ctx;
  MapCanvas canvas;
  const MultiHeadResult& r;
  std::vector<std::string> tokens, dims;
  BlockGrid blocked;
  char heads_text[256], outputs_text[512];
  int h = 0, per_row = 0, map_rows = 0;
  float map_w = 0, bw = 0, rows_f = 1, head_cell = 0, out_cell = 0, heads_text_h = 0, outputs_text_h = 0;

  MultiHeadLayout(MultiHeadUi& ui_, const PageInputs& in, Commands& out)
      : ui(ui_), ctx(in.ctx), canvas(in.canvas(out)), r(ui_.run) {
    const Scenario& s = ctx.doc.scenario;
    const float fs = ImGui::GetFontSize();
    const float avail_w = ImGui::GetContentRegionAvail().x;
    tokens = display_tokens(s.query_tokens, r.n);
    dims = lesson_dim_labels("", r.d_model);
    blocked = mask_grid(s.options.mask, r.n, r.n);
    h = ui.weights.heads();
    per_row = std::min(h, 4);
    map_rows = (h + per_row - 1) / per_row;
    map_w = std::max(fs * 7.0f, (avail_w - fs * static_cast<float>(per_row - 1)) / static_cast<float>(per_row));
    bw = (avail_w - fs * 2) / 3.0f;
    std::snprintf(heads_text, sizeof heads_text,
                  r.heads_identical && h > 1
                      ? "All %d heads share W_Q, W_K, W_V: every map is the same, and together they add no capacity over one head."
                      : "Each of the %d heads has its own projections, so each can attend to a different relationship.",
                  h);
    std::snprintf(outputs_text, sizeof outputs_text,
                  "[H_1 %s H_%d] W_O  =  %s_i H_i W_O^(i):  largest difference %s (largest output %s), equal to "
                  "float rounding.  Rank of the output: %d (at most d_head = %lld when the heads are the same).",
                  ctx.services.glyphs.ellipsis, h, ctx.services.glyphs.sum, significant(r.max_abs_difference, 2).c_str(),
                  three_digits(r.max_abs_output).c_str(), r.output_rank, static_cast<long long>(r.d_head));
    const float row_labels = heatmap_row_label_width(tokens, static_cast<int>(r.n));
    rows_f = static_cast<float>(std::max<Eigen::Index>(r.n, 1));
    const float max_cell = lesson_matrix_max_cell();
    head_cell = std::min(max_cell, (map_w - row_labels) / rows_f);
    out_cell = std::min(max_cell, (bw - row_labels) / static_cast<float>(std::max<Eigen::Index>(r.d_model, 1)));
    heads_text_h = wrapped_text_height(heads_text, avail_w) + ImGui::GetStyle().ItemSpacing.y;
    outputs_text_h = wrapped_text_height(outputs_text, avail_w) + ImGui::GetStyle().ItemSpacing.y;
  }

  // A matrix's height for cells of `cell` pixels: its title, its column labels, its rows.
  float matrix_h(float cell) const {
    const float fs = ImGui::GetFontSize(), sp = ImGui::GetStyle().ItemSpacing.y;
    return fs + sp + fs * 1.3f + rows_f * cell + sp;
  }

  void draw_heads(float cell) {
    const float fs = ImGui::GetFontSize(), map_h = matrix_h(cell);
    for (int k = 0; k < h; ++k) {
      if (k % per_row) ImGui::SameLine(0, fs);
      ImGui::BeginGroup();
      draw_lesson_matrix(canvas, ("head" + std::to_string(k)).c_str(), "head " + std::to_string(k + 1), Stage::Weights,
                         r.heads[static_cast<size_t>(k)].weights, &blocked, tokens, tokens, ImVec2(map_w, map_h));
      ImGui::EndGroup();
    }
    const Palette pal = palette(ctx.view);
    ImGui::PushStyleColor(ImGuiCol_Text, r.heads_identical && h > 1 ? pal.warning : pal.good);
    text_wrapped_unformatted(heads_text);
    ImGui::PopStyleColor();
  }

  void draw_outputs(float cell) {
    const float fs = ImGui::GetFontSize(), bh = matrix_h(cell);
    ImGui::PushStyleColor(ImGuiCol_Text, palette(ctx.view).accent);
    text_wrapped_unformatted(outputs_text);
    ImGui::PopStyleColor();
    ImGui::BeginGroup();
    draw_lesson_matrix(canvas, "concat", "concat [H_1 … H_h]", Stage::Output, r.concat, nullptr, tokens, dims, ImVec2(bw, bh));
    ImGui::EndGroup();
    ImGui::SameLine(0, fs);
    ImGui::BeginGroup();
    draw_lesson_matrix(canvas, "viewA", "A: concat · W_O", Stage::Output, r.output, nullptr, tokens, dims, ImVec2(bw, bh));
    ImGui::EndGroup();
    ImGui::SameLine(0, fs);
    ImGui::BeginGroup();
    draw_lesson_matrix(canvas, "viewB", "B: Σ H_i W_O^(i)", Stage::Output, r.output_from_slabs, nullptr, tokens, dims,
                       ImVec2(bw, bh));
    ImGui::EndGroup();
  }

  // Both parts on one page, shrunk together to the height `room` leaves, when that keeps the numbers
  // in their cells; returns false (drawing nothing) when it would not.
  bool draw_both(float room) {
    const ImGuiStyle& style = ImGui::GetStyle();
    float head_numbers = 0;
    for (const Result& hd : r.heads) head_numbers = std::max(head_numbers, cell_for_numbers(hd.weights, &blocked, min_number_size()));
    const float out_numbers = std::max(cell_for_numbers(r.concat, nullptr, min_number_size()), cell_for_numbers(r.output, nullptr, min_number_size()));
    // The heads' rows and the outputs' row share what the texts leave, in proportion to the cells
    // the width gives them.
    const float both_fixed = heads_text_h + outputs_text_h + static_cast<float>(map_rows + 1) * matrix_h(0.0f) +
                             static_cast<float>(map_rows) * style.ItemSpacing.y;
    const float both_cells = static_cast<float>(map_rows) * rows_f * head_cell + rows_f * out_cell;
    const float shrink = both_cells > 0 ? std::min(1.0f, (room - both_fixed) / both_cells) : 1.0f;
    if (shrink < 1.0f && (head_cell * shrink < head_numbers || out_cell * shrink < out_numbers)) return false;
    const float k = std::max(shrink, 0.1f);
    draw_heads(std::floor(head_cell * k));
    draw_outputs(std::floor(out_cell * k));
    return true;
  }

  // The heads, the outputs and the weight editor as three tabs that each get the whole height.
  void draw_tabs(float tab_room) {
    if (!ImGui::BeginTabBar("##multihead_parts")) return;
    const float sp = ImGui::GetStyle().ItemSpacing.y;
    auto fit = [&](float cell, float text_h, int rows_of_matrices) {
      const float per_row_h = (tab_room - text_h) / static_cast<float>(rows_of_matrices) - sp;
      return std::floor(std::max(1.0f, std::min(cell, (per_row_h - matrix_h(0.0f)) / rows_f)));
    };
    if (ImGui::BeginTabItem("the heads")) {
      draw_heads(fit(head_cell, heads_text_h, map_rows));
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("concat, then W_O")) {
      draw_outputs(fit(out_cell, outputs_text_h, 1));
      ImGui::EndTabItem();
    }
    if (ImGui::BeginTabItem("edit the weights")) {
      weight_editor(ui);
      ImGui::EndTabItem();
    }
    ImGui::EndTabBar();
  }
};

}  // namespace

MultiHeadUi::MultiHeadUi(const Scenario& s) {
  MultiHeadParams params;
  try {
    params = multi_head_params(LessonFields(s.lesson));
  } catch (const InputError&) {
  }
  heads = static_cast<int>(params.heads);
  seed = static_cast<int>(params.seed);
  share = params.share_projections;
}

void draw_multi_head_page(const PageInputs& in, const MultiHeadNumbers*, MultiHeadUi& ui, Commands& out) {
  const ViewContext& ctx = in.ctx;
  const Eigen::Index d_model = ctx.doc.scenario.Q.cols();
  draw_controls(ui, d_model);
  ensure_weights(ui, d_model);
  run_heads(ui, ctx);
  if (!ui.run_error.empty()) {
    error_text(palette(ctx.view).error, ui.run_error);
    return;
  }
  const MultiHeadResult& r = ui.run;
  char line[256];
  std::snprintf(line, sizeof line, "X: %lld %s d_model = %lld,  h = %d heads,  d_head = d_model / h = %lld", static_cast<long long>(r.n),
                ctx.services.glyphs.times, static_cast<long long>(r.d_model), ui.weights.heads(), static_cast<long long>(r.d_head));
  ImGui::TextUnformatted(line);
  if (ui.weights_edited) {
    ImGui::SameLine();
    ImGui::TextDisabled("(weights edited)");
    ImGui::SameLine();
    if (ImGui::SmallButton("reset")) ui.weights_key.clear();
  }
  // Both parts sized to the height left; where that would shrink the cells below the size their
  // numbers need (a 720-pixel-high projector), the heads and the outputs become two tabs.
  MultiHeadLayout page(ui, in, out);
  const float editor_h = ImGui::GetFrameHeightWithSpacing();
  const float room = ImGui::GetContentRegionAvail().y - editor_h - ImGui::GetStyle().ItemSpacing.y;
  if (!page.draw_both(room)) {
    // The weight editor is a third tab there: its header's line goes to the cells.
    page.draw_tabs(room + editor_h - ImGui::GetFrameHeightWithSpacing() - ImGui::GetStyle().ItemSpacing.y);
    return;
  }
  if (ImGui::CollapsingHeader("Edit the weights (W_Q, W_K, W_V of each head)")) weight_editor(ui);
}

}  // namespace attnlab::gui
