// What the lesson views draw with: one small matrix as a heatmap under its title, a line of numbers
// under it, labels for output columns, and the canvas they are drawn on.
#pragma once

#include "engine/attention/matrix.hpp"
#include "engine/attention/stage.hpp"
#include "gui/base/theme.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/view_context.hpp"
#include "gui/widgets/drawn_rect.hpp"

#include <imgui.h>

#include <initializer_list>
#include <string>
#include <vector>

namespace attnlab::gui {

// What a lesson's maps are drawn with: the frame's context, the lab's selected cell (outlined in
// every map of its stage), and the commands they hand on: where each was drawn (MapDrawn) and what
// its right-click menu asked for (StageMenu).
struct MapCanvas {
  const ViewContext& ctx;
  CellRef selected;
  Commands& out;
};

// One small matrix as a heatmap under a title, `size` wide and tall (labels included), drawn with
// the colours of `stage`. Returns the rectangle of its cells. Large matrices get a note instead.
DrawnRect draw_lesson_matrix(const MapCanvas& canvas, const char* id, const std::string& title, Stage stage, const Matrix& M,
                             const BlockGrid* blocked, const std::vector<std::string>& rows,
                             const std::vector<std::string>& cols, ImVec2 size, bool fixed_unit_range = false);
// The largest cell draw_lesson_matrix draws (views that size their matrices ahead use it).
float lesson_matrix_max_cell();
// A row of small numbers under a heatmap: "row sums 1.000 1.000 …".
void lesson_numbers_line(const char* label, const std::vector<double>& values, int decimals = 3);
// "v1", "v2", ... for output columns.
std::vector<std::string> lesson_dim_labels(const char* prefix, Eigen::Index count);

// One row of token chips after a label at `label_w` (lesson_label_width): each token's id framed, in
// the warning colour where it differs from `truth` (when given), the one at `mark` outlined in the
// accent colour (−1: none).
void lesson_token_row(const char* label, float label_w, const std::vector<int>& ids, const std::vector<int>* truth, int mark, const Palette& pal);
// Where the chips of lesson_token_row start: after the widest of `labels`.
float lesson_label_width(std::initializer_list<const char*> labels);

}  // namespace attnlab::gui
