// Where a heatmap was drawn (plain data, no ImGui): what the heatmap widget returns, and what the
// app keeps of the last frame for its automatic layout, the tests and the screenshot check.
#pragma once

namespace attnlab::gui {

// Where a heatmap was drawn last frame (screen pixels): the automatic layout, tests and the screenshot
// check read it.
struct DrawnRect {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  int rows = 0, cols = 0;
  bool drawn = false;
  float number_size = 0;        // the font size of the numbers inside the cells; 0: none drawn
  float left = 0;               // the left edge of the row labels (x0 when there are none)
  float top = 0;                // the top edge of the column labels (y0 when there are none)
  bool labels_cut = false;      // some token label was drawn shortened
  bool labels_rotated = false;  // the column labels read upwards (too wide to fit across a cell)
  float label_size = 0;         // the font size of its smallest row or column labels; 0: none drawn
};

}  // namespace attnlab::gui
