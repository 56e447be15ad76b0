// The streaming CPU path (cpu/streaming.cpp): query and key tiles with an online softmax, never
// the n × m matrices (FlashAttention's idea; docs/ARCHITECTURE.md, glossary: streaming).
#pragma once

#include "engine/attention/attention.hpp"

#include <atomic>
#include <functional>
#include <stdexcept>

namespace attnlab {

// Tuning and reporting for the streaming path.
struct StreamingOptions {
  Eigen::Index heatmap_rows = 1024;  // at most this many pixel rows (fewer when n is smaller)
  Eigen::Index heatmap_cols = 1024;  // at most this many pixel columns (fewer when m is smaller)
  // Called now and then from the calling thread with the fraction of query rows done (0..1].
  std::function<void(double fraction)> progress;
  // When set and it becomes true, the computation stops at the next tile and throws Cancelled
  // (the GUI runs long streaming computations in the background and cancels stale ones).
  const std::atomic<bool>* cancel = nullptr;
};

// Thrown by compute_streaming_cpu when StreamingOptions::cancel was set.
class Cancelled : public std::runtime_error {
public:
  Cancelled() : std::runtime_error("the computation was cancelled") {}
};

// The streaming path: query and key tiles, an online softmax, never the n × m matrices. Fills
// output (n × d_v), rows, stats and heatmap; scores/logits/weights/saturation stay empty and
// `dense` is false. Memory O((n + m)·(d_k + d_v) + heatmap pixels). Other normalizers than softmax
// are streamed a block of query rows at a time (O(rows·m) memory).
Result compute_streaming_cpu(const Problem& p, const StreamingOptions& options = {});

// Downsamples dense n × m weights the way the streaming path does (for tests and dense exports).
Heatmap downsample_weights(const Matrix& weights, Eigen::Index max_rows, Eigen::Index max_cols);

// The streaming path's tiles, chosen from the sizes of this CPU's caches (sysconf, else sysfs;
// ATTNLAB_TILE_ROWS / ATTNLAB_TILE_COLS override them for tuning): query rows × keys per tile.
struct StreamingTiles {
  Eigen::Index rows = 0, cols = 0;
  long l1d_bytes = 0, l2_bytes = 0;  // per core, as the system reports them (0: not reported)
};
StreamingTiles streaming_tile_sizes(Eigen::Index d_k, Eigen::Index d_v);

// A row's diagnostics from the online-softmax sums (the comment above OnlineRow in
// cpu/online_row.hpp): z, rest, ties, t, u2, u3 in the frame of the row's maximum score. Shared
// with the GPU's streaming path, which keeps the same sums. z = 0: a fully masked row.
RowDiagnostics diagnostics_from_online_sums(double z, double rest, double ties, double t, double u2, double u3);

}  // namespace attnlab
