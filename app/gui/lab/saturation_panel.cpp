// Saturation: the a(1−a) heatmap beside the per-row diagnostics, saturated and fully-masked rows
// marked, so switching √d_k scaling off at large d_k shows the collapse at a glance.
#include "gui/lab/saturation_panel.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/view_style.hpp"
#include "gui/widgets/heatmap.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>

namespace attnlab::gui {

namespace {

// The a(1−a) heatmap `width` wide with its colour bar (a dense result only).
void draw_saturation_map(const ViewContext& ctx, PipelineUi& pipeline, Commands& out, float width, float height) {
  const Result& r = ctx.results.result;
  const float fs = ImGui::GetFontSize();
  ImGui::BeginGroup();
  HeatmapSpec spec;
  spec.id = "saturation";
  spec.stage = Stage::Saturation;
  spec.values = &r.saturation;
  spec.blocked = &ctx.results.blocked;
  spec.row_labels = query_labels(ctx.shown());
  spec.col_labels = key_labels(ctx.shown());
  spec.map = &stage_colormap(ctx.view, Stage::Saturation);
  std::tie(spec.lo, spec.hi) = stage_range(ctx.results, Stage::Saturation);
  spec.size = ImVec2(width, std::max(40.0f, height - fs * 2.4f));
  spec.max_cell = fs * 4.0f;
  const HeatmapEvents ev = draw_heatmap(spec, heatmap_style(ctx, pipeline.selected));
  keep_drawn(pipeline, Stage::Saturation, ev);
  if (ev.menu != HeatmapMenu::None) out.push_back(StageMenu{Stage::Saturation, ev.menu});
  const DrawnRect& d = ev.drawn;
  draw_colorbar(palette(ctx.view), *spec.map, spec.lo, spec.hi, false, std::max(40.0f, d.x1 - d.x0));
  ImGui::EndGroup();
  if (ev.hovered.valid()) pipeline.hovered = ev.hovered;
  if (ev.clicked.valid()) pipeline.selected = ev.clicked;
}

// Every row's diagnostics, saturated and fully-masked rows marked; only the visible rows are drawn
// (a streamed document has up to 10⁶, drawn every frame).
void draw_row_table(const ViewContext& ctx, const Palette& pal) {
  const Result& r = ctx.results.result;
  const Scenario& shown = ctx.shown();
  const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_Borders | ImGuiTableFlags_ScrollY |
                                ImGuiTableFlags_SizingStretchProp;
  if (!ImGui::BeginTable("rows", 6, flags, ImVec2(0, std::max(ImGui::GetFontSize() * 4, ImGui::GetContentRegionAvail().y)))) return;
  ImGui::TableSetupScrollFreeze(0, 1);
  for (const char* h : {"row", "max weight", "entropy", "eff. keys", "Jacobian norm", "flag"}) ImGui::TableSetupColumn(h);
  ImGui::TableHeadersRow();
  ImGuiListClipper clipper;
  clipper.Begin(static_cast<int>(r.rows.size()));
  while (clipper.Step()) {
    for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
      const RowDiagnostics& row = r.rows[static_cast<size_t>(i)];
      ImGui::TableNextRow();
      if (row.saturated || row.fully_masked) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg1, pal.flagged_row_bg);
      ImGui::TableNextColumn();
      ImGui::Text("%d %s", i + 1, display_token(shown.query_tokens, shown.Q.rows(), i).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(row.max_weight, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(row.entropy, 3).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(row.effective_keys, 2).c_str());
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(fixed_decimals(row.jacobian_norm, 3).c_str());
      ImGui::TableNextColumn();
      const auto& overflow_rows = ctx.results.overflow.rows;
      const RowOverflow overflow = static_cast<size_t>(i) < overflow_rows.size() ? overflow_rows[static_cast<size_t>(i)] : RowOverflow::None;
      if (row.fully_masked) ImGui::TextUnformatted("fully masked");
      else if (overflow != RowOverflow::None) ImGui::TextUnformatted(row_overflow_label(overflow));
      else if (row.saturated) ImGui::TextUnformatted("SATURATED");
      else if (row.padding) ImGui::TextUnformatted("padding row");
    }
  }
  ImGui::EndTable();
}

}  // namespace

void draw_saturation_panel(const ViewContext& ctx, PipelineUi& pipeline, Commands& out) {
  if (!ctx.results.has_result) return;
  const Result& r = ctx.results.result;
  const Palette pal = palette(ctx.view);
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  int saturated = 0, masked = 0;
  for (const RowDiagnostics& d : r.rows) {
    saturated += d.saturated;
    masked += d.fully_masked;
  }
  // A streamed result has no a(1−a) matrix (n × m); its row diagnostics are all here.
  if (r.dense) {
    draw_saturation_map(ctx, pipeline, out, std::min(avail.x * 0.4f, avail.y * 1.2f), avail.y);
    ImGui::SameLine(0, fs);
  }
  ImGui::BeginGroup();
  text_wrapped("a(1%sa) is the softmax's local slope: 0 where a weight is pinned at 0 or 1, 0.25 at a = 0.5.",
                     ctx.services.glyphs.minus);
  // The pipeline panel gives the sentences; here the rows are flagged (engine/attention/overflow_notes.hpp).
  for (const std::string& note : ctx.results.overflow.sentences) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    text_wrapped("%s", note.c_str());
    ImGui::PopStyleColor();
  }
  if (saturated || masked) {
    ImGui::PushStyleColor(ImGuiCol_Text, pal.warning);
    ImGui::Text("%d of %d rows saturated (max weight %s 0.99), %d fully masked", saturated, static_cast<int>(r.n),
                ctx.services.fonts.unicode ? "≥" : ">=", masked);
    ImGui::PopStyleColor();
  } else {
    ImGui::Text("No row is saturated (max weight %s 0.99).", ctx.services.fonts.unicode ? "≥" : ">=");
  }
  draw_row_table(ctx, pal);
  ImGui::EndGroup();
}

}  // namespace attnlab::gui
