// The lab's UI state (the pipeline and the panels around it: inputs, controls, explain, saturation):
// what is not part of the document and is never undone. The lab's views take it with what they read.
#pragma once

#include "engine/attention/stage.hpp"
#include "gui/state/edits.hpp"
#include "gui/state/view_settings.hpp"
#include "gui/widgets/drawn_rect.hpp"
#include "gui/widgets/heatmap.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::gui {

// Inputs-panel state that is not part of the scenario file.
struct InputsUi {
  float sigma = 1.0f;
  int seed = 1;
  FillTarget fill_target = FillTarget::All;
  std::string sentence;
  std::string cell_error;  // a cell's text that did not parse, with the kept value
  std::string drop_path;   // a dropped .npy/.csv waiting for "into Q, K or V?"
};

// The pipeline's heatmaps as the user sees and points at them.
struct PipelineUi {
  std::array<DrawnRect, kStageCount> drawn{};  // each stage's heatmap as drawn last frame
  // The lesson view's small maps as drawn last frame, in the order drawn (`drawn` keeps one per
  // stage, and these share stages): the walk-through step's inputs, top or left first; the gqa
  // lesson's heads, variant by variant. Each view that draws them clears the list first.
  std::vector<DrawnRect> lesson_maps_drawn;
  CellRef hovered;   // under the mouse this frame
  CellRef selected;  // clicked: the explain panel follows it when nothing is hovered
  // A streamed result's weights map shows each pixel block's largest weight, else its mean: the
  // user's choice for the result of version `block_choice_for` (a new result shows the largest again).
  bool block_max = true;
  std::uint64_t block_choice_for = 0;
};

// Measured by the pipeline panel each frame, used by the host's automatic layout on the next.
struct LayoutUi {
  float pipeline_wants_height = 0;  // the height its heatmaps can use
  float pipeline_needs_height = 0;  // the height below which the numbers in its cells get too small
  float pipeline_needs_width = 0;   // the width below which the numbers in its cells get too small
  bool inputs_auto_folded = false;  // the host folded the inputs column this frame (inputs_auto_fold)
};

// Whether the inputs column is folded away this frame: by the user (I) or by presenter mode.
bool inputs_column_hidden(const ViewSettings& view, const LayoutUi& layout);
// I and View > Inputs column: shows a folded column (and, when presenter mode had folded it, stops
// folding it automatically), folds a shown one.
void toggle_inputs_column(ViewSettings& view, LayoutUi& layout);

// Keeps where a heatmap of `stage` was drawn this frame (PipelineUi::drawn: the last of each stage,
// which the automatic layout, the tests and the screenshot check read).
void keep_drawn(PipelineUi& pipeline, Stage stage, const HeatmapEvents& events);

// Whether the streamed weights map of the result of version `result_version` shows each block's
// largest weight (the default for every new result) or its mean; and that choice made.
bool shows_block_max(const PipelineUi& pipeline, std::uint64_t result_version);
void choose_block_max(PipelineUi& pipeline, std::uint64_t result_version, bool block_max);

}  // namespace attnlab::gui
