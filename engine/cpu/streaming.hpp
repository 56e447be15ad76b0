// The streaming CPU path (cpu/streaming.cpp): query and key tiles with an online softmax, never
// the n × m matrices (FlashAttention's idea; docs/ARCHITECTURE.md, glossary: streaming).
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/path_options.hpp"

namespace attnlab {

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

}  // namespace attnlab
