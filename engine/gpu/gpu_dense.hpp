// The dense path on the GL compute backend: every stage of a problem in compute shaders
// (shaders/scores.comp, softmax.comp, diagnostics.comp, output.comp), tiled to the driver's buffer
// limit, read back into the same Result as compute_cpu.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/bench.hpp"
#include "engine/gpu/gl_objects.hpp"

#include <cstddef>
#include <memory>
#include <vector>

namespace attnlab::gpu {

// The kernels the dense path runs; owned by the backend, built once.
struct DensePrograms {
  const ComputeProgram& scores;       // samplers on units 0 (Q) and 1 (K)
  const ComputeProgram& softmax;      // sampler on unit 0 (S)
  const ComputeProgram& diagnostics;  // sampler on unit 0 (weights)
  const ComputeProgram& output;       // samplers on units 0 (weights) and 1 (Vᵀ)
  // The bench also times the products by the GPU's own clock (StageTimes::*_kernel_ms): on
  // hardware only, as llvmpipe's timer queries do not cover the work it runs on the CPU.
  bool kernel_timers = false;
};

// Sets each dense kernel's sampler uniforms to the texture units its dispatches bind (above).
void set_sampler_units(const DensePrograms& programs);

// Copies `rows` rows of `cols` floats from `src` (row stride src_stride) into a zero-padded
// staging vector of `padded_rows` rows with row stride `stride`: a matrix as the kernels read it.
std::vector<float> padded(const float* src, std::size_t rows, std::size_t cols, std::size_t src_stride,
                          std::size_t stride, std::size_t padded_rows);

// One dispatch of shaders/scores.comp, which the dense and the streaming paths both run: S (rows ×
// keys, at column 4·s_col of a buffer whose rows are s_stride floats apart, `s` on binding 2) = the
// Q rows of texture `q` (unit 0) times the K rows of texture `k` (unit 1), d_k padded to dk_vec4
// vec4s.
struct ScoresTile {
  GLuint rows = 0, keys = 0, dk_vec4 = 0, s_stride = 0, s_col = 0;
};
void dispatch_scores(const ComputeProgram& scores, const BufferTexture& q, const BufferTexture& k, const Buffer& s,
                     const ScoresTile& tile);

// Dispatches a kernel of shaders/tile_dot.glsl's 8 × 8 tiles (scores, output, stream_output) over
// `columns` × `rows` cells: its workgroup size, which the tile variant it was built with sets,
// gives the block each workgroup covers.
void dispatch_tiles(const ComputeProgram& program, std::size_t columns, std::size_t rows);

// Every stage of `p`, each buffer under `limit` bytes. Sparsemax (a sort per row) and effective
// temperatures outside float's normal range are normalized on the CPU from the GPU's scores, and
// scores whose float32 sum could overflow are computed there in double; Result::computed_by says
// so. With `timing`, each stage is timed on its own (glFinish around it). Throws InputError on bad
// input or when one key row or row of scores cannot fit a buffer.
Result compute_dense_gpu(const DensePrograms& programs, const Problem& p, std::size_t limit, StageTimes* timing);

class DenseRun;

// The bench's dense computation of one problem, whose matrices stay on the GPU between runs: K and
// V are uploaded once, and so is Q where the problem is one chunk of query rows (a chunked one
// uploads each chunk's queries in its turn); each run() computes every stage again in the same
// buffers and reads nothing back. So the bench times what the card sustains, not the transfers
// that leave it idle between a run's stages (docs/PERFORMANCE.md, "On an NVIDIA GPU").
class ResidentDense {
public:
  // Throws as compute_dense_gpu does. `p` must outlive this and stay unchanged.
  ResidentDense(const DensePrograms& programs, const Problem& p, std::size_t limit);
  ~ResidentDense();
  ResidentDense(const ResidentDense&) = delete;
  ResidentDense& operator=(const ResidentDense&) = delete;

  // True when p is the problem this holds (the same object).
  bool holds(const Problem& p) const { return &p == &p_; }
  // Every stage once, each timed on its own (StageTimes, as compute_dense_gpu's `timing`).
  StageTimes run();
  // The last run's Result, read back (a problem of one chunk of query rows; compute_dense_gpu's
  // otherwise).
  Result result();

private:
  DensePrograms programs_;
  const Problem& p_;
  std::size_t limit_;
  std::unique_ptr<DenseRun> run_;
};

}  // namespace attnlab::gpu
