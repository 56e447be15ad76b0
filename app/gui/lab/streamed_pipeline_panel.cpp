// The pipeline of a document too large for dense stages (n = m = 100 000): the progress of its
// background streaming run, then the weights downsampled to pixels, the output and what was
// measured — and a plain statement of what was not kept, and why.
#include "gui/lab/streamed_pipeline_panel.hpp"

#include "engine/cpu/streaming.hpp"
#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/compute_job.hpp"
#include "gui/state/view_style.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace attnlab::gui {

namespace {

// "100 000": thousands apart, so long sizes read at a glance from the back of a room.
std::string grouped(Eigen::Index v) {
  std::string s = std::to_string(v);
  for (int k = static_cast<int>(s.size()) - 3; k > 0; k -= 3) s.insert(static_cast<size_t>(k), " ");
  return s;
}

// "rows 9 766–9 863" for pixel p of `pixels` covering `cells` cells (one cell: "row 12").
std::string cell_span(const char* one, const char* many, Eigen::Index p, Eigen::Index cells, Eigen::Index pixels,
                      const Glyphs& g) {
  const Eigen::Index a = pixel_first(p, cells, pixels), b = pixel_first(p + 1, cells, pixels) - 1;
  if (a >= b) return std::string(one) + " " + grouped(a + 1);
  return std::string(many) + " " + grouped(a + 1) + (g.minus[0] == '-' ? "-" : "–") + grouped(b + 1);
}


}  // namespace

bool draw_compute_progress(const ViewContext& ctx, Commands& out) {
  const Results& results = ctx.results;
  const Glyphs& g = ctx.services.glyphs;
  const Palette pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  if (results.job) {
    const ComputeJob& job = *results.job;
    ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
    text_wrapped("Streaming n %s m = %s %s %s on the %s: tiles of queries and keys with an online softmax, never "
                       "the whole n %s m matrix.",
                       g.times, grouped(job.rows()).c_str(), g.times, grouped(job.keys()).c_str(), job.on_gpu() ? "GPU" : "CPU",
                       g.times);
    ImGui::PopStyleColor();
    const double frac = job.progress();
    const std::string overlay = percent(frac * 100.0, 0) + "  " + fixed_decimals(job.elapsed_ms() / 1000.0, 1) + " s";
    ImGui::ProgressBar(static_cast<float>(frac), ImVec2(std::min(ImGui::GetContentRegionAvail().x, fs * 30), 0), overlay.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel")) out.push_back(CancelStreaming{});
    if (results.has_result) ImGui::TextDisabled("Until it finishes, the result from before the last change is shown.");
    return !results.has_result;
  }
  if (results.job_cancelled) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    text_wrapped(results.has_result ? "Cancelled: the result shown is from before the last change."
                                    : "Cancelled: this document has not been computed.");
    ImGui::PopStyleColor();
    if (ImGui::Button("Compute it")) out.push_back(StartStreaming{});
    return !results.has_result;
  }
  return false;
}

namespace {

// A map's heading in the accent colour, as the dense pipeline's stages have.
void stage_heading(const Palette& pal, const std::string& text) {
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::TextUnformatted(text.c_str());
  ImGui::PopStyleColor();
}

// `spec` drawn as the pipeline draws its stage (kept for the layout record, its menu's choice into
// `out`) with its colorbar underneath.
void draw_stage_map(const ViewContext& ctx, PipelineUi& pipeline, Commands& out, const HeatmapSpec& spec) {
  const float fs = ImGui::GetFontSize();
  const HeatmapEvents ev = draw_heatmap(spec, heatmap_style(ctx, pipeline.selected));
  keep_drawn(pipeline, spec.stage, ev);
  if (ev.menu != HeatmapMenu::None) out.push_back(StageMenu{spec.stage, ev.menu});
  const DrawnRect& d = ev.drawn;
  ImGui::SetCursorScreenPos(ImVec2(d.x0, d.y1 + fs * 0.4f));
  draw_colorbar(palette(ctx.view), *spec.map, spec.lo, spec.hi, spec.diverging, std::max(fs * 5, d.x1 - d.x0));
}

// The weights, downsampled, log scale, `width` × `height`; pixels with no weight at all are hatched
// like blocked cells.
void draw_streamed_weights(const ViewContext& ctx, PipelineUi& pipeline, Commands& out, float width, float height) {
  const Result& r = ctx.results.result;
  const StreamedViews& sv = ctx.results.streamed;
  const Glyphs& g = ctx.services.glyphs;
  const Palette pal = palette(ctx.view);
  const Heatmap& hm = r.heatmap;
  const bool show_max = shows_block_max(pipeline, ctx.results.result_version);
  const Matrix& shown = show_max ? sv.log_max : sv.log_mean;
  ImGui::BeginGroup();
  stage_heading(pal, std::string("weights, ") + (ctx.services.fonts.unicode ? "log₁₀" : "log10"));
  if (shown.size() > 0) {
    HeatmapSpec spec;
    spec.id = "streamed_weights";
    spec.stage = Stage::Weights;
    spec.values = &shown;
    spec.blocked = &sv.empty;
    spec.map = &stage_colormap(ctx.view, Stage::Weights);
    std::tie(spec.lo, spec.hi) = show_max ? sv.max_range : sv.mean_range;
    spec.size = ImVec2(width, height);
    spec.describe = [&r, &hm, &g](int y, int x) {
      return cell_span("query", "queries", y, r.n, hm.mean.rows(), g) + " " + g.times + " " +
             cell_span("key", "keys", x, r.m, hm.mean.cols(), g) + "\nlargest weight " + three_digits(hm.max(y, x)) +
             ", mean " + three_digits(hm.mean(y, x));
    };
    draw_stage_map(ctx, pipeline, out, spec);
  } else {
    text_wrapped("No heatmap (the run kept none).");
  }
  ImGui::EndGroup();
}

// The output, n × d_v, its rows averaged in blocks when there are more than fit as pixels.
void draw_streamed_output(const ViewContext& ctx, PipelineUi& pipeline, Commands& commands, float width, float height) {
  const Result& r = ctx.results.result;
  const Matrix& out = ctx.results.streamed.output;
  const Glyphs& g = ctx.services.glyphs;
  const Palette pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  ImGui::BeginGroup();
  stage_heading(pal, "output");
  if (out.size() > 0) {
    HeatmapSpec spec;
    spec.id = "streamed_output";
    spec.stage = Stage::Output;
    spec.values = &out;
    spec.map = &stage_colormap(ctx.view, Stage::Output);
    std::tie(spec.lo, spec.hi) = stage_range(ctx.results, Stage::Output);
    spec.diverging = true;
    spec.size = ImVec2(width, height);
    spec.max_cell = fs * 4;
    const Eigen::Index n = r.n, rows = out.rows();
    spec.describe = [n, rows, &out, &g](int y, int x) {
      return cell_span("query", "queries", y, n, rows, g) + ", v" + std::to_string(x + 1) + "\n" +
             (rows < n ? "mean output " : "output ") + fixed_decimals(out(y, x), 4);
    };
    draw_stage_map(ctx, pipeline, commands, spec);
  }
  ImGui::EndGroup();
}

// The words: what this is, what was not kept and why, the map's choices. Its own scrolling child:
// in presenter mode at 1280 × 720 the words may not all fit.
void draw_streamed_words(const ViewContext& ctx, PipelineUi& pipeline, ImVec2 size) {
  const Result& r = ctx.results.result;
  const Heatmap& hm = r.heatmap;
  const Glyphs& g = ctx.services.glyphs;
  const Palette pal = palette(ctx.view);
  const bool show_max = shows_block_max(pipeline, ctx.results.result_version);
  ImGui::BeginChild("streamed_words", size);
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  ImGui::TextUnformatted("streamed");
  ImGui::Text("n %s m = %s %s %s", g.times, grouped(r.n).c_str(), g.times, grouped(r.m).c_str());
  ImGui::PopStyleColor();
  ImGui::Text("d_k = %d, d_v = %d", static_cast<int>(r.d_k), static_cast<int>(r.d_v));
  ImGui::TextUnformatted(("computed in " + fixed_decimals(ctx.results.last_compute_ms / 1000.0, 1) + " s").c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, pal.text_dim);
  text_wrapped("Scores, logits, weights and saturation would take %s as n %s m matrices, so they were computed "
                     "tile by tile with an online softmax and never stored.",
                     human_bytes(dense_bytes(r.n, r.m)).c_str(), g.times);
  text_wrapped("Each pixel of the weights map is a block of about %s %s %s cells; hatched blocks are masked.",
                     grouped((r.n + std::max<Eigen::Index>(hm.mean.rows(), 1) - 1) / std::max<Eigen::Index>(hm.mean.rows(), 1)).c_str(),
                     g.times,
                     grouped((r.m + std::max<Eigen::Index>(hm.mean.cols(), 1) - 1) / std::max<Eigen::Index>(hm.mean.cols(), 1)).c_str());
  if (ctx.results.streamed.output.rows() < r.n) {
    text_wrapped("Output rows are averaged in the same row blocks.");
  }
  text_wrapped("Every row's diagnostics: the Saturation tab.");
  ImGui::PopStyleColor();
  ImGui::Spacing();
  ImGui::TextUnformatted("Each pixel shows its block's");
  if (ImGui::RadioButton("largest weight", show_max)) choose_block_max(pipeline, ctx.results.result_version, true);
  if (ImGui::IsItemHovered()) {
    ImGui::SetTooltip("A sharp weight on one key disappears in a block's mean; the largest keeps it visible.");
  }
  if (ImGui::RadioButton("mean weight", !show_max)) choose_block_max(pipeline, ctx.results.result_version, false);
  ImGui::EndChild();
}

}  // namespace

void draw_streaming_view(const ViewContext& ctx, PipelineUi& pipeline, LayoutUi& layout, Commands& out) {
  const float fs = ImGui::GetFontSize();
  layout.pipeline_wants_height = 1e9f;  // as much of the column as the host gives
  // Maps on the left, as tall as the area allows; the words in a column on their right.
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const float gap = fs * 1.2f, line = ImGui::GetTextLineHeightWithSpacing();
  const float map_h = std::max(fs * 4, avail.y - line * 2 - fs * 2.4f);  // title; colour bar and its numbers; caption
  const float text_w = std::clamp(avail.x * 0.34f, fs * 10, fs * 22);
  const float weights_w = std::max(fs * 4, std::min(map_h, (avail.x - text_w - gap * 2) / 1.4f));
  const float output_w = std::max(fs * 3, std::min(weights_w * 0.4f, avail.x - text_w - gap * 2 - weights_w));
  draw_streamed_weights(ctx, pipeline, out, weights_w, map_h);
  float x = ImGui::GetItemRectMax().x + gap;
  ImGui::SetCursorScreenPos(ImVec2(x, top.y));
  draw_streamed_output(ctx, pipeline, out, output_w, map_h);
  x = ImGui::GetItemRectMax().x + gap;
  ImGui::SetCursorScreenPos(ImVec2(x, top.y));
  draw_streamed_words(ctx, pipeline, ImVec2(std::max(fs * 8, top.x + avail.x - x), avail.y));
}

}  // namespace attnlab::gui
