// The mask family of "The Query-Key-Value framework" side by side on the same scores: bidirectional, causal, padding,
// prefix-LM and sliding window, each map's blocked cells hatched and its row sums written under it.
#include "gui/lessons/mask_family_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cstdio>

namespace attnlab::gui {

void draw_mask_family_page(const PageInputs& in, const MaskFamilyNumbers* numbers, Commands& out) {
  if (!numbers_or_why(in, numbers)) return;
  const MapCanvas canvas = in.canvas(out);
  const Scenario& s = in.ctx.shown();
  const std::vector<std::string>& specs = numbers->specs;
  const float fs = ImGui::GetFontSize();
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 top = ImGui::GetCursorScreenPos();
  const int count = static_cast<int>(specs.size());
  const int cols = count <= 3 ? count : (count + 1) / 2;
  const int rows = (count + cols - 1) / cols;
  const float w = avail.x / static_cast<float>(std::max(cols, 1)), h = avail.y / static_cast<float>(std::max(rows, 1));
  const auto ql = display_tokens(s.query_tokens, s.Q.rows()), kl = display_tokens(s.key_tokens, s.K.rows());
  for (int k = 0; k < count; ++k) {
    ImGui::SetCursorScreenPos(ImVec2(top.x + static_cast<float>(k % cols) * w, top.y + static_cast<float>(k / cols) * h));
    ImGui::BeginGroup();
    const LessonVariant& v = numbers->variants[static_cast<size_t>(k)];
    if (v.ok()) {
      const Result& r = v.result;
      const BlockGrid& blocked = v.blocked;
      const Mask& m = v.options.mask;
      const char* names[] = {"bidirectional (BERT)", "causal (GPT)", "padding", "prefix-LM", "sliding window", "custom"};
      const char* params[] = {nullptr, nullptr, "L", "P", "W", nullptr};
      const int kind = static_cast<int>(m.kind);
      std::string title = names[kind];
      if (params[kind]) title += std::string(", ") + params[kind] + " = " + std::to_string(m.param);
      // Each row's sum stands right of its row (a column "Σ"), not in a line under the map: the
      // line ran into the next map, and the height it took made the cells smaller.
      const Palette pal = palette(in.ctx.view);
      const float sums_w = ImGui::CalcTextSize("1.00").x + fs * 0.8f;
      const DrawnRect d = draw_lesson_matrix(canvas, ("mask" + std::to_string(k)).c_str(), title, Stage::Weights,
                                             r.weights, &blocked, ql, kl, ImVec2(w - fs - sums_w, h - fs * 0.6f));
      if (d.drawn && d.rows == r.n) {
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const float ch = (d.y1 - d.y0) / static_cast<float>(d.rows);
        const ImVec2 sigma = ImGui::CalcTextSize(in.ctx.services.glyphs.sum);
        dl->AddText(ImVec2(d.x1 + fs * 0.4f, d.y0 - sigma.y - 2), pal.text_dim, in.ctx.services.glyphs.sum);
        for (Eigen::Index i = 0; i < r.n; ++i) {
          const std::string sum = fixed_decimals(r.weights.row(i).cast<double>().sum(), 2);
          const float size = std::min(fs, std::max(ch * 0.8f, 1.0f));
          dl->AddText(ImGui::GetFont(), size, ImVec2(d.x1 + fs * 0.4f, d.y0 + ch * (static_cast<float>(i) + 0.5f) - size * 0.5f),
                      pal.text_dim, sum.c_str());
        }
      }
    } else {
      error_text(palette(in.ctx.view).error, v.error);
    }
    ImGui::EndGroup();
  }
}

}  // namespace attnlab::gui
