// A scrolling region that shows only whole lines of text: where its edge would cut a line in two
// (its last line at the bottom, its first at the top once scrolled), the region ends before that
// line instead, and the scrollbar says there is more. On a projector a line cut at a panel's edge
// reads as a different word ("d v" for "d_v", "Trv" for "Try"), which the legibility contract
// (DESIGN.md, "The layout record") counts as clipped.
#pragma once

#include <imgui.h>

#include <vector>

namespace attnlab::gui {

// A line of text across a region, top to bottom (a level run's line box, or an upright run's glyphs).
struct LineSpan {
  float top = 0, bottom = 0;
};

// Where the region [top, bottom] (its clip rectangle's, across) should end so that no line is cut:
// {new top, new bottom}, the region's own where no line crosses its edge. A line crossing an edge is
// given up, and with it any line beside it that the new edge would cut in turn; the new edge is put
// `pad` (a frame's padding) past the last whole line, or as far as the next line's frame allows. A
// region where no whole line would be left keeps its edges.
LineSpan whole_lines_span(const std::vector<LineSpan>& lines, LineSpan region, float pad);

// Inside a child window, after its contents and before ImGui::EndChild: what the window and its
// child windows drew this frame is clipped to whole lines (whole_lines_span over the text they drew,
// read back from their draw lists).
void keep_lines_whole();

}  // namespace attnlab::gui
