// What a caller asks of the two ways every backend computes a problem: the dense path's stages to
// keep (DenseStages) and the streaming path's heatmap, progress and cancel (StreamingOptions).
#pragma once

#include "engine/attention/attention.hpp"

#include <atomic>
#include <functional>
#include <stdexcept>

namespace attnlab {

// Which n × m stages the dense path keeps in the Result (the others are left 0 × 0). Every number
// kept, the output, rows and stats are the same whichever are kept; each is 4·n·m bytes.
// `compute --summary` keeps none; the full report keeps scores and weights and derives logits
// and saturation cell by cell while printing (logit_of, saturation_of). A backend whose buffers
// hold every stage anyway (the GPU) may keep them all.
struct DenseStages {
  bool scores = true, logits = true, weights = true, saturation = true;
};

// Reporting and control for the streaming path.
struct StreamingOptions {
  Eigen::Index heatmap_rows = 1024;  // at most this many pixel rows (fewer when n is smaller)
  Eigen::Index heatmap_cols = 1024;  // at most this many pixel columns (fewer when m is smaller)
  // Called now and then from the calling thread with the fraction of query rows done (0..1].
  std::function<void(double fraction)> progress;
  // When set and it becomes true, the computation stops at the next tile and throws Cancelled
  // (the GUI runs long streaming computations in the background and cancels stale ones).
  const std::atomic<bool>* cancel = nullptr;
};

// Thrown by a streaming path when StreamingOptions::cancel was set.
class Cancelled : public std::runtime_error {
public:
  Cancelled() : std::runtime_error("the computation was cancelled") {}
};

}  // namespace attnlab
