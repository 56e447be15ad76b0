// The Help window: what the app shows and every keyboard shortcut (the lesson index with each lesson's
// reference card follows it: lessons/lesson_text_view.hpp).
#include "gui/shell/help_window.hpp"

#include "gui/shell/shortcuts.hpp"
#include "gui/widgets/wrapped_text.hpp"

namespace attnlab::gui {

void draw_help_window(const ViewContext& ctx) {
  const Glyphs& g = ctx.services.glyphs;
  text_wrapped("Attention Lab computes softmax(Q K%s %s %sd_k) V and shows every stage: scores %s logits %s "
                     "weights %s output, and the softmax's saturation a(1%sa).",
                     g.transpose, g.divide, g.sqrt, g.arrow, g.arrow, g.arrow, g.minus);
  text_wrapped("Edit Q, K and V on the left: drag a number to scrub it, click to type one, Tab to move on. "
                     "Hover over or click a cell to see its arithmetic. Big heatmaps: scroll to zoom, drag to pan, "
                     "double-click to reset.");
  ImGui::Separator();
  if (ImGui::BeginTable("keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV)) {
    ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("what");
    ImGui::TableHeadersRow();
    for (const Shortcut& s : shortcut_list()) {
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      ImGui::TextUnformatted(s.keys);
      ImGui::TableNextColumn();
      text_wrapped_unformatted(s.what);  // a projector's font: wrapped in its cell, not cut at the edge
    }
    ImGui::EndTable();
  }
  ImGui::Separator();
}

}  // namespace attnlab::gui
