// A scrolling region that shows only whole lines of text (whole_lines.hpp).
#include "gui/widgets/whole_lines.hpp"

#include "gui/widgets/drawn_text.hpp"

#include <imgui_internal.h>

#include <algorithm>

namespace attnlab::gui {

namespace {

constexpr float kSlack = 0.5f;  // a pixel's rounding: lines that touch do not cross

bool crosses(const LineSpan& l, float y) { return l.top < y - kSlack && l.bottom > y + kSlack; }

// The region's window and its child windows, whose draw lists hold what the region shows.
void collect_lists(ImGuiWindow* w, std::vector<ImDrawList*>& out) {
  out.push_back(w->DrawList);
  for (ImGuiWindow* c : w->DC.ChildWindows)
    if (c->Active && !(c->Flags & (ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip))) collect_lists(c, out);
}

}  // namespace

LineSpan whole_lines_span(const std::vector<LineSpan>& lines, LineSpan region, float pad) {
  LineSpan out = region;
  // The bottom edge: up to the top of every line it would cut, then down again to just past the
  // last line left whole (by a frame's padding, where the next line's frame leaves room).
  float t = region.bottom;
  for (bool moved = true; moved;) {
    moved = false;
    for (const LineSpan& l : lines)
      if (crosses(l, t)) t = l.top, moved = true;
  }
  if (t < region.bottom) {
    float b = -1;
    for (const LineSpan& l : lines)
      if (l.bottom <= t + kSlack && l.top >= region.top - kSlack) b = std::max(b, l.bottom);
    if (b >= 0) out.bottom = std::max(b, std::min(b + pad, t - pad));
  }
  // The top edge of a scrolled region, the same way upwards.
  float b = region.top;
  for (bool moved = true; moved;) {
    moved = false;
    for (const LineSpan& l : lines)
      if (crosses(l, b)) b = l.bottom, moved = true;
  }
  if (b > region.top) {
    float top = -1;
    for (const LineSpan& l : lines)
      if (l.top >= b - kSlack && l.bottom <= out.bottom + kSlack && (top < 0 || l.top < top)) top = l.top;
    if (top >= 0) out.top = std::min(top, std::max(top - pad, b + pad));
  }
  if (out.bottom - out.top < 1) return region;  // no whole line: better a cut one than none
  return out;
}

void keep_lines_whole() {
  ImGuiWindow* w = ImGui::GetCurrentWindow();
  std::vector<ImDrawList*> lists;
  collect_lists(w, lists);
  const ImRect clip = w->InnerClipRect;
  const std::vector<const ImDrawList*> read(lists.begin(), lists.end());
  std::vector<LineSpan> lines;
  for (const DrawnText& t : drawn_texts(read, *ImGui::GetIO().Fonts)) {
    // A level line's box runs from its pen's top a font size down (its descenders within it); an
    // upright label's is its glyphs'.
    const float top = t.upright ? t.min.y : std::min(t.min.y, t.line_top);
    const float bottom = t.upright ? t.max.y : std::max(t.max.y, t.line_top + t.px);
    // A line crosses the region's edge where its ink is cut (drawn_text.hpp) and it reaches past the
    // edge: a line box past the edge below glyphs whose ink is whole is no cut line.
    const bool past = top < clip.Min.y - kSlack || bottom > clip.Max.y + kSlack;
    const bool cut = t.clipped && past;
    lines.push_back(cut ? LineSpan{top, bottom} : LineSpan{std::max(top, clip.Min.y), std::min(bottom, clip.Max.y)});
  }
  const LineSpan span = whole_lines_span(lines, {clip.Min.y, clip.Max.y}, ImGui::GetStyle().FramePadding.y);
  if (span.top == clip.Min.y && span.bottom == clip.Max.y) return;
  // Everything drawn inside the region's clip rectangle (not its scrollbar, which is drawn beside
  // it under its parent's) now stops at the new edges.
  for (ImDrawList* list : lists) {
    for (ImDrawCmd& cmd : list->CmdBuffer) {
      ImVec4& r = cmd.ClipRect;
      if (r.x < clip.Min.x - kSlack || r.y < clip.Min.y - kSlack || r.z > clip.Max.x + kSlack || r.w > clip.Max.y + kSlack) continue;
      r.y = std::max(r.y, span.top);
      r.w = std::max(r.y, std::min(r.w, span.bottom));
    }
  }
}

}  // namespace attnlab::gui
