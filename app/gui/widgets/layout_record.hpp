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
  const ImDrawList* list = nullptr;  // the window's draw list it went into (record_map fills it)
};

struct LayoutRecord {
  std::vector<RecordedMap> maps;
};

// The record being written this frame, or null when the frame is not recorded.
LayoutRecord* layout_record();
// Starts recording into `record` (null stops); the shell calls it around the frame it records.
void record_layout(LayoutRecord* record);
// Adds a map to the record when the frame is recorded, drawn into the current window.
void record_map(RecordedMap map);

struct DrawnText;  // drawn_text.hpp

// A window drawn over others: its root's rectangle (a collapsed window's is its title bar), its name,
// and the draw lists that are its own (its child windows' too). Only windows with a background hide
// what lies under them.
struct OverWindow {
  ImVec2 min, max;
  std::string name;
  std::vector<const ImDrawList*> lists;
};
// The frame's root windows with a background, in the order drawn (back to front), from ImGui's own
// list of windows; the shell calls it after rendering the recorded frame.
std::vector<OverWindow> windows_drawn(const ImDrawData& data);

// The record as docs/CLI.md's layout record: {"window": [w, h], "presenter", "maps": [{"id", "rect":
// [x, y, w, h], "rows", "cols", "cell_px", "label_px", "hidden", "under"}], "texts": [{"text", "rect",
// "px", "clipped", "upright", "hidden", "under"}]}, in window pixels (`scale` of them per ImGui unit).
// `hidden`: wholly under a window drawn after it (nobody sees it); `under`: the name of a window
// drawn after it that covers part of it, or "" (it overlaps what covers it).
std::string layout_record_json(const LayoutRecord& record, const std::vector<DrawnText>& texts, const std::vector<OverWindow>& windows,
                               ImVec2 window, bool presenter, float scale);

}  // namespace attnlab::gui
