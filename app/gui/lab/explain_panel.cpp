// The "Explain a cell" panel: follows the hovered cell, else the clicked one.
#include "gui/lab/explain_panel.hpp"

#include "engine/attention/explain.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

void draw_explain_panel(const ViewContext& ctx, const PipelineUi& pipeline) {
  if (!ctx.results.has_result) return;
  const CellRef cell = pipeline.hovered.valid() ? pipeline.hovered : pipeline.selected;
  const Result& r = ctx.results.result;
  if (!r.dense) {
    text_wrapped("This document was streamed: its n %s m stages were never stored, so single cells cannot be "
                       "worked by hand here. Hover over the weights map for each block's mean and largest weight; "
                       "the Saturation tab lists every row's diagnostics.",
                       ctx.services.glyphs.times);
    return;
  }
  const Eigen::Index cols = cell.stage == Stage::Output ? r.d_v : r.m;
  if (!cell.valid() || cell.row >= r.n || cell.col >= cols) {
    text_wrapped("Hover over or click any cell of the pipeline to see its arithmetic, worked the way the course "
                       "texts do it by hand. Click a cell to keep it here.");
    return;
  }
  // The result's own document: the live one may have shrunk since (an edit before its recompute).
  const Scenario& shown = ctx.shown();
  const Explanation e = explain_cell(shown.problem(), r, cell, query_labels(shown), key_labels(shown), ctx.services.glyphs);
  const Palette pal = palette(ctx.view);
  ImGui::PushStyleColor(ImGuiCol_Text, pal.accent);
  text_wrapped("%s", e.heading.c_str());
  ImGui::PopStyleColor();
  ImGui::Separator();
  for (size_t k = 0; k < e.steps.size(); ++k) {
    text_wrapped("%zu.  %s", k + 1, e.steps[k].c_str());
  }
}

}  // namespace attnlab::gui
