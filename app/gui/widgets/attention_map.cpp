// See attention_map.hpp.
#include "gui/widgets/attention_map.hpp"
#include "gui/widgets/layout_record.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab::gui {

std::pair<int, int> draw_attention_map(const std::string& id, const model::CausalWeights& A, ImVec2 at, float side, int blocks,
                                       const Colormap& map, ImU32 not_finite) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const int n = static_cast<int>(A.rows());
  const int b = std::max(1, std::min(n, blocks));
  const float cell = side / static_cast<float>(b);
  record_map({id, at, ImVec2(at.x + side, at.y + side), n, n, cell, 0});
  const ImU32 blocked = IM_COL32(40, 40, 46, 255);
  for (int bi = 0; bi < b; ++bi) {
    const int i0 = bi * n / b, i1 = (bi + 1) * n / b;
    for (int bj = 0; bj < b; ++bj) {
      const int j0 = bj * n / b, j1 = (bj + 1) * n / b;
      const ImVec2 p0(at.x + static_cast<float>(bj) * cell, at.y + static_cast<float>(bi) * cell);
      const ImVec2 p1(p0.x + cell + 0.5f, p0.y + cell + 0.5f);
      if (j0 > i1 - 1) {
        dl->AddRectFilled(p0, p1, blocked);
        continue;
      }
      double sum = 0;
      int count = 0;
      for (int i = i0; i < i1; ++i) {
        for (int j = j0; j < std::min(j1, i + 1); ++j) sum += A(i, j), ++count;
      }
      const double mean = count ? sum / count : 0.0;
      if (!std::isfinite(mean)) {
        dl->AddRectFilled(p0, p1, not_finite);
        continue;
      }
      const Rgb c = map.at(std::clamp(mean, 0.0, 1.0));
      dl->AddRectFilled(p0, p1, IM_COL32(c.r, c.g, c.b, 255));
    }
  }
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  // Also while an item is held: the map's own button (head_map_button) while it is pressed, whose
  // tooltip would otherwise vanish between the press and the release.
  if (n == 0 || !ImGui::IsWindowHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem) || mouse.x < at.x || mouse.y < at.y || mouse.x >= at.x + side || mouse.y >= at.y + side) {
    return {-1, -1};
  }
  const int i = std::min(n - 1, static_cast<int>((mouse.y - at.y) / side * static_cast<float>(n)));
  const int j = std::min(n - 1, static_cast<int>((mouse.x - at.x) / side * static_cast<float>(n)));
  return {i, j};
}

std::string head_map_label(int l, int h) { return "L" + std::to_string(l) + "H" + std::to_string(h) + " map"; }

bool head_map_button(int l, int h, ImVec2 at, float side) {
  const ImVec2 cursor = ImGui::GetCursorScreenPos();
  ImGui::SetCursorScreenPos(at);
  const bool clicked = ImGui::InvisibleButton(head_map_label(l, h).c_str(), ImVec2(side, side));
  ImGui::SetCursorScreenPos(cursor);
  return clicked;
}

}  // namespace attnlab::gui
