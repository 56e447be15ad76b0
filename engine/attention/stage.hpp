// The stages of the pipeline, one enum for the engine, the CLI and the GUI, and a cell of one of
// them: scores → logits → weights → output, saturation beside weights.
#pragma once

#include "engine/attention/matrix.hpp"

#include <string_view>

namespace attnlab {

struct Result;  // attention.hpp

// The stages a figure or a data file can show; Pipeline puts scores → logits → weights → output
// side by side (figures only).
enum class Stage { Scores, Logits, Weights, Output, Saturation, Pipeline };

// The stages that are matrices (all but Pipeline), in pipeline order.
inline constexpr int kStageCount = 5;

std::string_view stage_name(Stage s);
// The stage's matrix in a result (r.weights for Pipeline, which is a figure, not one matrix).
const Matrix& stage_matrix(const Result& r, Stage s);
// True for the signed stages, drawn on a diverging colormap by default: scores, logits, output.
bool stage_is_signed(Stage s);
// "scores", ... "pipeline" -> Stage; throws InputError naming `where` for anything else.
Stage parse_stage(std::string_view name, std::string_view where = "--stage");

// A cell of one stage's matrix; row/col −1 when nothing is chosen.
struct CellRef {
  Stage stage = Stage::Weights;
  int row = -1, col = -1;
  bool valid() const { return row >= 0 && col >= 0; }
  friend bool operator==(const CellRef&, const CellRef&) = default;
};

}  // namespace attnlab
