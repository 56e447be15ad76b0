// Geometry ("13.2 Scaled dot-product attention") with d_k = d_v = 2: queries and keys are arrows
// you drag, values are points you drag, and each output is drawn as a point inside the convex hull of the values, live.
#include "engine/lessons/lesson_math.hpp"
#include "gui/lessons/lesson_views.hpp"
#include "gui/state/lesson_view_model.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/history.hpp"
#include "gui/widgets/text_layout.hpp"
#include "gui/widgets/wrapped_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

constexpr ImU32 kQueryColor = IM_COL32(240, 140, 40, 255);
constexpr ImU32 kKeyColor = IM_COL32(70, 150, 240, 255);
constexpr ImU32 kValueColor = IM_COL32(60, 190, 110, 255);
constexpr ImU32 kOutputColor = IM_COL32(230, 70, 160, 255);

void arrow(ImDrawList* dl, ImVec2 from, ImVec2 to, ImU32 col, float thick) {
  dl->AddLine(from, to, col, thick);
  const float dx = to.x - from.x, dy = to.y - from.y, len = std::sqrt(dx * dx + dy * dy);
  if (len < 1) return;
  const float ux = dx / len, uy = dy / len, s = thick * 4;
  dl->AddTriangleFilled(to, ImVec2(to.x - ux * s - uy * s * 0.6f, to.y - uy * s + ux * s * 0.6f),
                        ImVec2(to.x - ux * s + uy * s * 0.6f, to.y - uy * s - ux * s * 0.6f), col);
}

}  // namespace

void draw_geometry_view(AppState& state, Services& services) {
  LessonUi& ui = state.lesson;
  const Scenario& s = shown_scenario(state);
  const Palette pal = palette(state.view);
  const float fs = ImGui::GetFontSize();
  if (s.Q.cols() != 2 || s.V.cols() != 2) {
    text_wrapped("The plane needs d_k = d_v = 2 (this scenario has d_k = %lld, d_v = %lld). Set both to 2 in the "
                       "Inputs panel, or open the Geometry lesson.",
                       static_cast<long long>(s.Q.cols()), static_cast<long long>(s.V.cols()));
    return;
  }
  std::string error;
  const GeometryNumbers* numbers = lesson_numbers<GeometryNumbers>(state, services, error);
  if (!numbers) {
    text_wrapped("%s", error.c_str());
    return;
  }
  const GeometryView& g = numbers->geometry;
  // The plane's extent: all points with a margin, frozen while dragging.
  if (!ui.drag_kind || ui.plane_half <= 0) {
    double half = 1;
    for (const auto* set : {&g.queries, &g.keys, &g.values, &g.outputs})
      for (const auto& p : *set) half = std::max({half, std::fabs(p[0]), std::fabs(p[1])});
    ui.plane_half = half * 1.25;
  }
  const double half = ui.plane_half;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const float side = std::max(80.0f, std::min(avail.x * 0.62f, avail.y - fs * 0.5f));
  const ImVec2 o = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("plane", ImVec2(side, side));
  const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
  const ImVec2 c(o.x + side * 0.5f, o.y + side * 0.5f);
  const float scale = side * 0.5f / static_cast<float>(half);
  auto to_screen = [&](const Point2& p) { return ImVec2(c.x + static_cast<float>(p[0]) * scale, c.y - static_cast<float>(p[1]) * scale); };
  auto to_plane = [&](ImVec2 q) { return Point2{(q.x - c.x) / scale, (c.y - q.y) / scale}; };

  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(o, ImVec2(o.x + side, o.y + side), true);
  dl->AddRectFilled(o, ImVec2(o.x + side, o.y + side), ImGui::GetColorU32(ImGuiCol_FrameBg));
  // Grid at whole units (or tenths when zoomed in), axes through the origin.
  const double step = half > 6 ? std::pow(10.0, std::floor(std::log10(half))) : half > 1.5 ? 1.0 : 0.25;
  for (double v = -std::floor(half / step) * step; v <= half; v += step) {
    const ImVec2 a = to_screen({v, -half}), b = to_screen({v, half}), l = to_screen({-half, v}), r = to_screen({half, v});
    dl->AddLine(a, b, pal.cell_border, 1.0f);
    dl->AddLine(l, r, pal.cell_border, 1.0f);
  }
  dl->AddLine(to_screen({-half, 0}), to_screen({half, 0}), pal.text_dim, 1.5f);
  dl->AddLine(to_screen({0, -half}), to_screen({0, half}), pal.text_dim, 1.5f);
  // The convex hull of the values, filled.
  if (g.hull.size() >= 3) {
    std::vector<ImVec2> poly;
    for (const auto& p : g.hull) poly.push_back(to_screen(p));
    dl->AddConvexPolyFilled(poly.data(), static_cast<int>(poly.size()), (kValueColor & 0x00FFFFFF) | 0x38000000);
    dl->AddPolyline(poly.data(), static_cast<int>(poly.size()), kValueColor, ImDrawFlags_Closed, 2.0f);
  } else if (g.hull.size() == 2) {
    dl->AddLine(to_screen(g.hull[0]), to_screen(g.hull[1]), kValueColor, 3.0f);
  }
  const ImVec2 origin = to_screen({0, 0});
  const auto qt = display_tokens(s.query_tokens, s.Q.rows()), kt = display_tokens(s.key_tokens, s.K.rows());
  // Arrows and points first, then every label placed so that none covers another (Q = K in the
  // course's worked example, so query and key tips coincide).
  std::vector<std::pair<float, float>> anchors;
  std::vector<LabelBox> sizes;
  std::vector<std::pair<std::string, ImU32>> texts;
  auto label = [&](ImVec2 at, std::string text, ImU32 colour) {
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    anchors.emplace_back(at.x, at.y);
    sizes.push_back(LabelBox{0, 0, ts.x, ts.y});
    texts.emplace_back(std::move(text), colour);
  };
  for (size_t j = 0; j < g.keys.size(); ++j) {
    arrow(dl, origin, to_screen(g.keys[j]), kKeyColor, 2.5f);
    label(to_screen(g.keys[j]), "k:" + kt[j], kKeyColor);
  }
  for (size_t i = 0; i < g.queries.size(); ++i) {
    arrow(dl, origin, to_screen(g.queries[i]), kQueryColor, 2.5f);
    label(to_screen(g.queries[i]), "q:" + qt[i], kQueryColor);
  }
  for (size_t j = 0; j < g.values.size(); ++j) {
    const ImVec2 p = to_screen(g.values[j]);
    dl->AddRectFilled(ImVec2(p.x - 6, p.y - 6), ImVec2(p.x + 6, p.y + 6), kValueColor);
    label(p, "v:" + kt[j], kValueColor);
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const ImVec2 p = to_screen(g.outputs[i]);
    dl->AddCircleFilled(p, 7, g.inside[i] ? kOutputColor : pal.error);
    dl->AddCircle(p, 7, IM_COL32(255, 255, 255, 255), 0, 1.5f);
    label(p, "o:" + qt[i], kOutputColor);
  }
  const auto boxes = place_labels(anchors, sizes, std::max(6.0f, fs * 0.3f), LabelBox{o.x, o.y, side, side});
  const ImU32 backing = (ImGui::GetColorU32(ImGuiCol_FrameBg) & 0x00FFFFFF) | 0xC0000000;
  for (size_t k = 0; k < boxes.size(); ++k) {
    const LabelBox& b = boxes[k];
    // A translucent backing keeps a label readable where it crosses an arrow or a grid line.
    dl->AddRectFilled(ImVec2(b.x - 2, b.y), ImVec2(b.x + b.w + 2, b.y + b.h), backing, 3.0f);
    dl->AddText(ImVec2(b.x, b.y), texts[k].second, texts[k].first.c_str());
  }
  dl->PopClipRect();

  // Dragging: the nearest arrow tip or value point within reach follows the mouse.
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    float best = fs * 1.2f;
    ui.drag_kind.reset();
    const std::vector<Point2>* sets[] = {&g.queries, &g.keys, &g.values};
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t k = 0; k < sets[kind]->size(); ++k) {
        const ImVec2 p = to_screen((*sets[kind])[k]);
        const float d = std::hypot(p.x - mouse.x, p.y - mouse.y);
        if (d < best) {
          best = d;
          ui.drag_kind = static_cast<Which>(kind);
          ui.drag_index = static_cast<int>(k);
        }
      }
    }
  }
  if (active && ui.drag_kind && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 0.0f)) {
    Point2 p = to_plane(mouse);
    p[0] = std::clamp(std::round(p[0] * 100) / 100, -half, half);
    p[1] = std::clamp(std::round(p[1] * 100) / 100, -half, half);
    const int kind = static_cast<int>(*ui.drag_kind), idx = ui.drag_index;
    static const char* const names[] = {"drag query", "drag key", "drag value"};
    apply(state, names[kind], [&](Document& d) {
      Matrix& M = kind == 0 ? d.scenario.Q : kind == 1 ? d.scenario.K : d.scenario.V;
      if (idx < M.rows() && M.cols() >= 2) {  // the plane is the shown result's: the document may have moved on
        M(idx, 0) = static_cast<float>(p[0]);
        M(idx, 1) = static_cast<float>(p[1]);
      }
    }, std::string("geometry drag ") + std::to_string(kind) + ":" + std::to_string(idx));
  }
  if (!active && ui.drag_kind) {
    ui.drag_kind.reset();
    end_merge(state);
  }

  // Beside the plane: the legend and the numbers.
  ImGui::SameLine(0, fs);
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + avail.x - side - fs * 1.5f);
  auto coloured = [](ImU32 colour, const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    text_wrapped("%s", text);
    ImGui::PopStyleColor();
  };
  coloured(kQueryColor, "queries: arrows (drag the tips)");
  coloured(kKeyColor, "keys: arrows (drag the tips)");
  coloured(kValueColor, "values: squares, and their convex hull");
  coloured(kOutputColor, "outputs: dots, o_i = Σ_j a_ij v_j");
  ImGui::Separator();
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    text_wrapped("o:%s = (%.4f, %.4f) %s", qt[i].c_str(), g.outputs[i][0], g.outputs[i][1],
                 g.inside[i] ? "inside the hull" : "OUTSIDE?");
  }
  ImGui::Spacing();
  text_wrapped("A score is a dot product, so a query scores highest on the keys it points along, and its output "
                     "slides toward those keys' values. The weights are non-negative and sum to 1, so no output can "
                     "leave the hull: attention interpolates, it never extrapolates.");
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

}  // namespace attnlab::gui
