// The heatmap widget shared by the pipeline, saturation and lesson views: token labels on both axes,
// numbers in cells when they fit, hatched blocked cells, hover/click, a right-click menu, and for big
// matrices a GL texture with pan/zoom (see heatmap_renderer.hpp). Like Dear ImGui's own widgets it
// takes what it draws and a style, and returns what happened.
#pragma once

#include "engine/attention/matrix.hpp"
#include "engine/attention/stage.hpp"
#include "engine/figures/colormap.hpp"
#include "gui/base/theme.hpp"
#include "gui/widgets/drawn_rect.hpp"

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

class HeatmapRenderer;

// How a heatmap is drawn beyond its values.
struct HeatmapStyle {
  Palette palette;
  bool numbers_in_cells = true;
  CellRef selected;                     // outlined when it is a cell of this heatmap's stage
  std::uint64_t version = 0;            // the values' version: the GL texture is redrawn when it changes
  HeatmapRenderer* renderer = nullptr;  // null: big matrices get a coarse preview (window-less tests)
};

// What the right-click menu asked for.
enum class HeatmapMenu { None, ExportStage, ExportPipeline, CopyLatex, CopyCsv };

struct HeatmapEvents {
  CellRef hovered;  // row/col −1 when the mouse is elsewhere
  CellRef clicked;  // a click without dragging
  DrawnRect drawn;  // where it was drawn
  HeatmapMenu menu = HeatmapMenu::None;
};

// Matrices with more cells than this, or cells smaller than kMinCellPx, go through the GL path.
inline constexpr long kMaxImmediateCells = 48 * 48;
inline constexpr float kMinCellPx = 5.0f;

// Each heatmap (by `spec.id` in the current ImGui ID scope) keeps its own pan/zoom.
HeatmapEvents draw_heatmap(const HeatmapSpec& spec, const HeatmapStyle& style);

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
void draw_colorbar(const Palette& pal, const Colormap& map, double lo, double hi, bool diverging, float width);


}  // namespace attnlab::gui
