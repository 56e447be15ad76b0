// The streaming path on the GL compute backend: query chunks against key tiles with an online
// softmax in compute shaders (shaders/stream_*.comp), never the n × m matrices.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/path_options.hpp"
#include "engine/gpu/gl_objects.hpp"
#include "engine/gpu/gpu_backend.hpp"

#include <cstddef>
#include <map>
#include <utility>

namespace attnlab::gpu {

// stream_block.comp, built on first use for each head size (its query and output accumulator are
// registers, so their sizes are the program's constants) and kept.
class BlockKernels {
public:
  // `shared_bytes`: the driver's GL_MAX_COMPUTE_SHARED_MEMORY_SIZE.
  // `shared_bytes`: the driver's GL_MAX_COMPUTE_SHARED_MEMORY_SIZE; `shape`: GpuBlockShape's.
  BlockKernels(std::size_t shared_bytes, GpuBlockShape shape) : shared_bytes_(shared_bytes), shape_(shape) {}

  struct Kernel {
    ComputeProgram program;  // samplers on units 0 (Q), 1 (K) and 2 (V)
    std::size_t rows = 0;    // query rows per workgroup
    std::size_t keys = 0;    // keys per tile staged in shared memory
  };
  // The kernel for rows of dk4 and dv4 floats (multiples of 4), or null where a head is wider than
  // kMaxHead or even 8 keys' tiles would not fit the shared memory. Throws GpuError when it does not build.
  const Kernel* get(std::size_t dk4, std::size_t dv4);

  static constexpr std::size_t kMaxHead = 128;  // floats per row of Q, K or V

private:
  std::size_t shared_bytes_;
  GpuBlockShape shape_;
  std::map<std::pair<std::size_t, std::size_t>, Kernel> built_;
};

// The kernels the streaming path runs; owned by the backend, built once.
struct StreamingPrograms {
  const ComputeProgram& scores;     // scores.comp, samplers on units 0 (Q) and 1 (K)
  const ComputeProgram& update;     // stream_update.comp
  const ComputeProgram& output;     // stream_output.comp, samplers on units 0 (P) and 1 (Vᵀ)
  const ComputeProgram& heat;       // stream_heat.comp
  const ComputeProgram& heat_rows;  // stream_heat_rows.comp
  // Query rows in one chunk at most for the per-row kernels. stream_update.comp gives each row one
  // invocation, which walks its row of the tile alone: llvmpipe's cores are busy with 1024 rows,
  // while a card runs 1024 rows on a few of its multiprocessors and waits on each one's reads
  // (100 000 causal tokens took 7.7-9.3 s on an H200 so, docs/PERFORMANCE.md).
  std::size_t chunk_rows = 1024;
  // stream_block.comp where it is chosen (GpuStream), null for the per-row kernels.
  BlockKernels* blocks = nullptr;
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

// The stream_block.comp kernel compute_streaming_gpu runs p on, or null where it runs the per-row
// kernels (or the CPU's path, where the GPU's kernels cannot match it).
const BlockKernels::Kernel* block_kernel(const StreamingPrograms& programs, const Problem& p,
                                         const StreamingOptions& options, std::size_t limit);

}  // namespace attnlab::gpu
