// Geometry ("13.2 Scaled dot-product attention") with d_k = d_v = 2: queries and keys are arrows
// you drag, values are points you drag, and each output is drawn as a point inside the convex hull of the values, live.
#include "gui/lessons/geometry_page.hpp"

#include "engine/text/text_format.hpp"
#include "gui/base/theme.hpp"
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

// The plane as drawn: a square `side` pixels wide at `origin`, ±half units across.
struct Plane {
  ImVec2 origin;
  float side = 0;
  double half = 1;
  ImVec2 centre() const { return ImVec2(origin.x + side * 0.5f, origin.y + side * 0.5f); }
  float scale() const { return side * 0.5f / static_cast<float>(half); }
  ImVec2 to_screen(const Point2& p) const {
    return ImVec2(centre().x + static_cast<float>(p[0]) * scale(), centre().y - static_cast<float>(p[1]) * scale());
  }
  Point2 to_plane(ImVec2 q) const { return Point2{(q.x - centre().x) / scale(), (centre().y - q.y) / scale()}; }
};

// The plane's extent: all points with a margin, frozen while dragging so the plane does not slide
// under the mouse.
double plane_half(GeometryUi& ui, const GeometryView& g) {
  if (!ui.drag_kind || ui.plane_half <= 0) {
    double half = 1;
    for (const auto* set : {&g.queries, &g.keys, &g.values, &g.outputs})
      for (const auto& p : *set) half = std::max({half, std::fabs(p[0]), std::fabs(p[1])});
    ui.plane_half = half * 1.25;
  }
  return ui.plane_half;
}

// Grid at whole units (or tenths when zoomed in), axes through the origin, the values' hull filled.
void draw_grid_and_hull(ImDrawList* dl, const Plane& pl, const GeometryView& g, const Palette& pal) {
  const double half = pl.half;
  dl->AddRectFilled(pl.origin, ImVec2(pl.origin.x + pl.side, pl.origin.y + pl.side), ImGui::GetColorU32(ImGuiCol_FrameBg));
  const double step = half > 6 ? std::pow(10.0, std::floor(std::log10(half))) : half > 1.5 ? 1.0 : 0.25;
  for (double v = -std::floor(half / step) * step; v <= half; v += step) {
    dl->AddLine(pl.to_screen({v, -half}), pl.to_screen({v, half}), pal.cell_border, 1.0f);
    dl->AddLine(pl.to_screen({-half, v}), pl.to_screen({half, v}), pal.cell_border, 1.0f);
  }
  dl->AddLine(pl.to_screen({-half, 0}), pl.to_screen({half, 0}), pal.text_dim, 1.5f);
  dl->AddLine(pl.to_screen({0, -half}), pl.to_screen({0, half}), pal.text_dim, 1.5f);
  if (g.hull.size() >= 3) {
    std::vector<ImVec2> poly;
    for (const auto& p : g.hull) poly.push_back(pl.to_screen(p));
    dl->AddConvexPolyFilled(poly.data(), static_cast<int>(poly.size()), (kValueColor & 0x00FFFFFF) | 0x38000000);
    dl->AddPolyline(poly.data(), static_cast<int>(poly.size()), kValueColor, ImDrawFlags_Closed, 2.0f);
  } else if (g.hull.size() == 2) {
    dl->AddLine(pl.to_screen(g.hull[0]), pl.to_screen(g.hull[1]), kValueColor, 3.0f);
  }
}

// Arrows and points first, then every label placed so that none covers another (Q = K in the
// course's worked example, so query and key tips coincide).
void draw_points(ImDrawList* dl, const Plane& pl, const GeometryView& g, const std::vector<std::string>& qt,
                 const std::vector<std::string>& kt, const Palette& pal) {
  const ImVec2 origin = pl.to_screen({0, 0});
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
    arrow(dl, origin, pl.to_screen(g.keys[j]), kKeyColor, 2.5f);
    label(pl.to_screen(g.keys[j]), "k:" + kt[j], kKeyColor);
  }
  for (size_t i = 0; i < g.queries.size(); ++i) {
    arrow(dl, origin, pl.to_screen(g.queries[i]), kQueryColor, 2.5f);
    label(pl.to_screen(g.queries[i]), "q:" + qt[i], kQueryColor);
  }
  for (size_t j = 0; j < g.values.size(); ++j) {
    const ImVec2 p = pl.to_screen(g.values[j]);
    dl->AddRectFilled(ImVec2(p.x - 6, p.y - 6), ImVec2(p.x + 6, p.y + 6), kValueColor);
    label(p, "v:" + kt[j], kValueColor);
  }
  for (size_t i = 0; i < g.outputs.size(); ++i) {
    const ImVec2 p = pl.to_screen(g.outputs[i]);
    dl->AddCircleFilled(p, 7, g.inside[i] ? kOutputColor : pal.error);
    dl->AddCircle(p, 7, IM_COL32(255, 255, 255, 255), 0, 1.5f);
    label(p, "o:" + qt[i], kOutputColor);
  }
  const float fs = ImGui::GetFontSize();
  const auto boxes = place_labels(anchors, sizes, std::max(6.0f, fs * 0.3f), LabelBox{pl.origin.x, pl.origin.y, pl.side, pl.side});
  const ImU32 backing = (ImGui::GetColorU32(ImGuiCol_FrameBg) & 0x00FFFFFF) | 0xC0000000;
  for (size_t k = 0; k < boxes.size(); ++k) {
    const LabelBox& b = boxes[k];
    // A translucent backing keeps a label readable where it crosses an arrow or a grid line.
    dl->AddRectFilled(ImVec2(b.x - 2, b.y), ImVec2(b.x + b.w + 2, b.y + b.h), backing, 3.0f);
    dl->AddText(ImVec2(b.x, b.y), texts[k].second, texts[k].first.c_str());
  }
}

constexpr const char* kDragNames[] = {"drag query", "drag key", "drag value"};

// Dragging: the nearest arrow tip or value point within reach follows the mouse, as one undoable
// edit per drag.
void handle_drag(GeometryUi& ui, Commands& out, const Plane& pl, const GeometryView& g, bool hovered, bool active) {
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  if (hovered && ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
    float best = ImGui::GetFontSize() * 1.2f;
    ui.drag_kind.reset();
    const std::vector<Point2>* sets[] = {&g.queries, &g.keys, &g.values};
    for (int kind = 0; kind < 3; ++kind) {
      for (size_t k = 0; k < sets[kind]->size(); ++k) {
        const ImVec2 p = pl.to_screen((*sets[kind])[k]);
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
    Point2 p = pl.to_plane(mouse);
    p[0] = std::clamp(std::round(p[0] * 100) / 100, -pl.half, pl.half);
    p[1] = std::clamp(std::round(p[1] * 100) / 100, -pl.half, pl.half);
    const int kind = static_cast<int>(*ui.drag_kind), idx = ui.drag_index;
    out.push_back(Edit(kDragNames[kind], [kind, idx, p](Document& d) {
      Matrix& M = kind == 0 ? d.scenario.Q : kind == 1 ? d.scenario.K : d.scenario.V;
      if (idx < M.rows() && M.cols() >= 2) {  // the plane is the shown result's: the document may have moved on
        M(idx, 0) = static_cast<float>(p[0]);
        M(idx, 1) = static_cast<float>(p[1]);
      }
    }, std::string("geometry drag ") + std::to_string(kind) + ":" + std::to_string(idx)));
  }
  if (!active && ui.drag_kind) {
    ui.drag_kind.reset();
    out.push_back(EndMerge{});
  }
}

// Beside the plane: the legend and the numbers, wrapped at `wrap_width`.
void draw_legend(const GeometryView& g, const std::vector<std::string>& qt, float wrap_width) {
  ImGui::BeginGroup();
  ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + wrap_width);
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
    text_wrapped("o:%s = (%s, %s) %s", qt[i].c_str(), fixed_decimals(g.outputs[i][0], 4).c_str(),
                 fixed_decimals(g.outputs[i][1], 4).c_str(), g.inside[i] ? "inside the hull" : "OUTSIDE?");
  }
  ImGui::Spacing();
  text_wrapped("A score is a dot product, so a query scores highest on the keys it points along, and its output "
                     "slides toward those keys' values. The weights are non-negative and sum to 1, so no output can "
                     "leave the hull: attention interpolates, it never extrapolates.");
  ImGui::PopTextWrapPos();
  ImGui::EndGroup();
}

}  // namespace

void draw_geometry_page(const PageInputs& in, const GeometryNumbers* numbers, GeometryUi& ui, Commands& out) {
  const Scenario& s = in.ctx.shown();
  const float fs = ImGui::GetFontSize();
  if (s.Q.cols() != 2 || s.V.cols() != 2) {
    text_wrapped("The plane needs d_k = d_v = 2 (this scenario has d_k = %lld, d_v = %lld). Set both to 2 in the "
                       "Inputs panel, or open the Geometry lesson.",
                       static_cast<long long>(s.Q.cols()), static_cast<long long>(s.V.cols()));
    return;
  }
  if (!numbers_or_why(in, numbers)) return;
  const GeometryView& g = numbers->geometry;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  Plane pl;
  pl.half = plane_half(ui, g);
  pl.side = std::max(80.0f, std::min(avail.x * 0.62f, avail.y - fs * 0.5f));
  pl.origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("plane", ImVec2(pl.side, pl.side));
  const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
  const auto qt = display_tokens(s.query_tokens, s.Q.rows()), kt = display_tokens(s.key_tokens, s.K.rows());
  ImDrawList* dl = ImGui::GetWindowDrawList();
  dl->PushClipRect(pl.origin, ImVec2(pl.origin.x + pl.side, pl.origin.y + pl.side), true);
  draw_grid_and_hull(dl, pl, g, palette(in.ctx.view));
  draw_points(dl, pl, g, qt, kt, palette(in.ctx.view));
  dl->PopClipRect();
  handle_drag(ui, out, pl, g, hovered, active);
  ImGui::SameLine(0, fs);
  draw_legend(g, qt, avail.x - pl.side - fs * 1.5f);
}

}  // namespace attnlab::gui
