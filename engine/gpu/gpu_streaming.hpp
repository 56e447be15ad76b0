// The streaming path on the GL compute backend: query chunks against key tiles with an online
// softmax in compute shaders (shaders/stream_*.comp), never the n × m matrices.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/path_options.hpp"
#include "engine/gpu/gl_objects.hpp"

#include <cstddef>

namespace attnlab::gpu {

// The kernels the streaming path runs; owned by the backend, built once.
struct StreamingPrograms {
  const ComputeProgram& scores;     // scores.comp, samplers on units 0 (Q) and 1 (K)
  const ComputeProgram& update;     // stream_update.comp
  const ComputeProgram& output;     // stream_output.comp, samplers on units 0 (P) and 1 (Vᵀ)
  const ComputeProgram& heat;       // stream_heat.comp
  const ComputeProgram& heat_rows;  // stream_heat_rows.comp
  // Query rows in one chunk at most. stream_update.comp gives each row one invocation, which walks
  // its row of the tile alone: llvmpipe's cores are busy with 1024 rows, while a card runs 1024
  // rows on a few of its multiprocessors and waits on each one's reads (100 000 causal tokens took
  // 7.7-9.3 s on an H200 so, docs/PERFORMANCE.md).
  std::size_t chunk_rows = 1024;
};

// compute_streaming_cpu's result computed on the GPU: output (n × d_v), rows, stats and the
// downsampled weights heatmap; `dense` is false. Memory on the GPU: O((n + m)·(d_k + d_v)) for the
// inputs plus one chunk of query rows (≤ programs.chunk_rows) against one tile of keys (≤ 1024) and
// the heatmap.
// Buffers stay under `limit` bytes each. Where the GPU cannot match the CPU path (normalizers
// other than softmax, an effective temperature outside float range, a ±∞ or NaN score, sizes whose
// indices would not fit 32 bits) it returns compute_streaming_cpu's result instead, which also
// throws the CPU path's errors. Throws Cancelled between key tiles once options.cancel is set.
Result compute_streaming_gpu(const StreamingPrograms& programs, const Problem& p, const StreamingOptions& options,
                             std::size_t limit);

}  // namespace attnlab::gpu
