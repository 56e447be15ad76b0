// What is derived from a result once, when it arrives, so panels never rescan n × m matrices per
// frame: the finite range of a stage and the downsampled maps of a streamed result.
#pragma once

#include "engine/attention/attention.hpp"

#include <utility>

namespace attnlab::gui {

// The finite min and max of a matrix, skipping blocked cells; {0, 1} when none is finite.
std::pair<double, double> finite_range(const Matrix& M, const BlockGrid* blocked);

// What the view of a streamed result draws, derived once per result. Weights of a long row are tiny
// (they share 1 among 10⁵ keys), so the maps are drawn on a log scale.
struct StreamedViews {
  Matrix output;              // the output, rows averaged in blocks to at most 1024
  Matrix log_max, log_mean;   // log₁₀ of each pixel block's largest and mean weight
  BlockGrid empty;            // pixels whose weights are all 0 (blocked by the mask): hatched
  std::pair<double, double> max_range{-1, 0}, mean_range{-1, 0};  // colour ranges, log₁₀
};

// What the streamed pipeline panel shows of a streamed result.
StreamedViews streamed_views(const Result& r);

}  // namespace attnlab::gui
