// The heatmap widget shared by the pipeline and saturation panels: token labels on both axes,
// numbers in cells when they fit, hatched blocked cells, hover/click, and for big matrices a GL
// texture with pan/zoom (see heatmap_renderer.hpp).
#pragma once

#include "engine/figures/colormap.hpp"
#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace attnlab::gui {

struct HeatmapSpec {
  const char* id = "heatmap";
  Stage stage = Stage::Weights;
  const Matrix* values = nullptr;      // rows × cols
  const BlockGrid* blocked = nullptr;  // rows × cols, or null
  std::vector<std::string> row_labels, col_labels;
  const Colormap* map = nullptr;
  double lo = 0, hi = 1;  // colour range (a diverging map is centred at 0)
  bool diverging = false;
  ImVec2 size{200, 200};    // the whole area, labels included
  float max_cell = 0;       // 0: no limit
  float row_label_width = -1;  // the room for the row labels; < 0: heatmap_row_label_width (at most 30%)
  const char* blocked_text = nullptr;  // drawn in blocked cells when they fit ("−∞")
  // The hover read-out of cell (row, col) when set (downsampled maps say which cells a pixel covers).
  std::function<std::string(int row, int col)> describe;
};

struct HeatmapEvents {
  CellRef hovered;  // row/col −1 when the mouse is elsewhere
  CellRef clicked;  // a click without dragging
  DrawnRect drawn;  // where it was drawn (also kept as AppState::drawn[stage], the stage's last one)
};

// Matrices with more cells than this, or cells smaller than kMinCellPx, go through the GL path.
inline constexpr long kMaxImmediateCells = 48 * 48;
inline constexpr float kMinCellPx = 5.0f;

// Each heatmap (by `spec.id` in the current ImGui ID scope) keeps its own pan/zoom.
HeatmapEvents draw_heatmap(AppState& state, Services& services, const HeatmapSpec& spec);

// How a heatmap writes its column labels above cells `cell_w` pixels wide (current font): across at
// the body size when they fit, smaller down to 60%, else reading upwards (rotated a quarter turn)
// so that a token is never cut to its first letters. `height` is the room they take above the grid.
struct ColumnLabels {
  bool rotated = false;
  float size = 0;    // font size in pixels; 0: no labels
  float height = 0;
};
ColumnLabels column_label_layout(const std::vector<std::string>& labels, int cols, float cell_w);

// The room the row labels take beside the grid at the body size (0 when there are none to draw:
// no labels, or more than 32 rows).
float heatmap_row_label_width(const std::vector<std::string>& labels, int rows);

// The width at font size 1 of the widest number of `values` written with two decimals (blocked and
// non-finite cells skipped).
float widest_number(const Matrix& values, const BlockGrid* blocked);
// The smallest square cell (pixels) in which every number of `values` (blocked cells skipped) can
// be written with two decimals at font size `size`: heatmaps with smaller cells leave them out.
float cell_for_numbers(const Matrix& values, const BlockGrid* blocked, float size);

// The smallest font size numbers are written in at all (larger in presenter mode, current font).
float min_number_size();

// A horizontal colour bar `width` wide with its range written under it.
void draw_colorbar(const AppState& state, const Colormap& map, double lo, double hi, bool diverging, float width);

// Formats v compactly for a cell: 3 significant decimals for |v| < 10, fewer for larger values.
std::string format_cell(double v, int decimals);

// The colormap a stage is drawn with: the chosen diverging map for signed stages, the chosen
// sequential one otherwise (falling back to the defaults when a name is unknown).
const Colormap& stage_colormap(const AppState& state, Stage stage);
// The colour range of a stage: weights [0, 1], saturation [0, 0.25], signed stages their range.
std::pair<double, double> stage_range(const AppState& state, Stage stage, const BlockGrid* blocked);

}  // namespace attnlab::gui
