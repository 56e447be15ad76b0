// What a frame drew, for the layout record (`gui --screenshot` with ATTNLAB_GUI_LAYOUT, docs/CLI.md):
// each map with its cells and labels, as the widgets that draw maps report them. The shell turns
// recording on for the frame it records (ImGuiIO::UserData points at the record); the text comes
// from the frame's draw lists afterwards (drawn_text.hpp).
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace attnlab::gui {

struct RecordedMap {
  std::string id;      // the heatmap's id, or a head's map label ("L1H0 map")
  ImVec2 min, max;     // its grid of cells, in ImGui's display coordinates
  int rows = 0, cols = 0;
  float cell_px = 0;   // a cell's side (the shorter one), or a block's where a map shows blocks
  float label_px = 0;  // the size of its row and column labels; 0 where it draws none
};

struct LayoutRecord {
  std::vector<RecordedMap> maps;
};

// The record being written this frame, or null when the frame is not recorded.
LayoutRecord* layout_record();
// Starts recording into `record` (null stops); the shell calls it around the frame it records.
void record_layout(LayoutRecord* record);
// Adds a map to the record when the frame is recorded.
void record_map(RecordedMap map);

struct DrawnText;  // drawn_text.hpp

// The record as docs/CLI.md's layout record: {"window": [w, h], "presenter", "maps": [{"id", "rect":
// [x, y, w, h], "rows", "cols", "cell_px", "label_px"}], "texts": [{"text", "rect", "px", "clipped",
// "upright"}]}, in window pixels (`scale` of them per ImGui unit).
std::string layout_record_json(const LayoutRecord& record, const std::vector<DrawnText>& texts, ImVec2 window, bool presenter,
                               float scale);

}  // namespace attnlab::gui
