// The dense path on the GL compute backend: every stage of a problem in compute shaders
// (shaders/scores.comp, softmax.comp, diagnostics.comp, output.comp), tiled to the driver's buffer
// limit, read back into the same Result as compute_cpu.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/bench.hpp"
#include "engine/gpu/gl_objects.hpp"

#include <cstddef>

namespace attnlab::gpu {

// The kernels the dense path runs; owned by the backend, built once.
struct DensePrograms {
  const ComputeProgram& scores;       // samplers on units 0 (Q) and 1 (K)
  const ComputeProgram& softmax;      // sampler on unit 0 (S)
  const ComputeProgram& diagnostics;  // sampler on unit 0 (weights)
  const ComputeProgram& output;       // samplers on units 0 (weights) and 1 (Vᵀ)
};

// Every stage of `p`, each buffer under `limit` bytes. Sparsemax (a sort per row) and effective
// temperatures outside float's normal range are normalized on the CPU from the GPU's scores, and
// scores whose float32 sum could overflow are computed there in double; Result::computed_by says
// so. With `timing`, each stage is timed on its own (glFinish around it). Throws InputError on bad
// input or when one key row or row of scores cannot fit a buffer.
Result compute_dense_gpu(const DensePrograms& programs, const Problem& p, std::size_t limit, StageTimes* timing);

}  // namespace attnlab::gpu
