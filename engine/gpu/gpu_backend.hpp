// The GL compute backend (OpenGL 4.3 compute shaders): the engine's Backend on the GPU. Needs
// only a GL context; the GUI hands it its GLFW one, the CLI and tests get a headless EGL one.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/attention/bench.hpp"
#include "engine/gpu/gl_context.hpp"
#include "engine/lessons/scaling.hpp"

#include <cstddef>
#include <memory>

namespace attnlab {

// How the GPU's products (scores, output, the streamed output) reach their operands
// (shaders/tile_dot.glsl).
enum class GpuTiles {
  Auto,     // Texture on a software renderer (llvmpipe), Shared on a GPU
  Texture,  // each invocation fetches its own rows from buffer textures
  Shared,   // a workgroup stages 64 rows of each operand in shared memory, 16 dimensions at a time
};

// Which kernels stream (attention over long sequences, never the n × m matrices).
enum class GpuStream {
  Auto,    // Rows on a software renderer (llvmpipe), Blocks on a GPU
  Rows,    // per key tile: scores.comp, then stream_update.comp walking each row in one invocation,
           // then stream_output.comp
  Blocks,  // stream_block.comp: a workgroup per block of query rows, K and V tiles in shared memory,
           // each row's state in registers (heads of at most 128 dimensions; wider ones stream by rows)
};

// stream_block.comp's blocks: query rows per workgroup, and keys per tile staged in shared memory
// (0: the most of 32, 16 and 8 that fit). A choice for measuring variants on a card (bench --gpu-block).
struct GpuBlockShape {
  std::size_t rows = 64;
  std::size_t keys = 0;
};

struct GpuBackendOptions {
  // Largest storage buffer the backend allocates, in bytes; 0 means the driver's
  // GL_MAX_SHADER_STORAGE_BLOCK_SIZE. Smaller values force the tiled path (tests).
  std::size_t max_buffer_bytes = 0;
  // Which displays a headless context may use (make_gpu_backend_headless only).
  gpu::HeadlessRoute route = gpu::HeadlessRoute::Best;
  GpuTiles tiles = GpuTiles::Auto;
  GpuStream stream = GpuStream::Auto;
  GpuBlockShape block;
};

// The GPU backend on a new headless context (an EGL device or Mesa's surfaceless platform), owned
// by the backend and made current on the calling thread. Throws BackendUnavailable with one sentence saying why when no
// GL 4.3 context can be made here.
std::unique_ptr<Backend> make_gpu_backend_headless(const GpuBackendOptions& options = {});

// The GPU backend on the GL context current on the calling thread (the GUI's GLFW window). That
// context must be current whenever the backend is used or destroyed. Throws BackendUnavailable
// when the context is older than GL 4.3.
std::unique_ptr<Backend> make_gpu_backend_on_current_context(const GpuBackendOptions& options = {});

namespace gpu {

// The bench and the scaling lesson's sampler on a GPU backend's device (gpu_bench.cpp,
// gpu_scaling.cpp; make_bench and make_scaling_sampler in backend_choice.hpp pick them by kind).
std::unique_ptr<BackendBench> make_bench(Backend& gpu_backend);
std::unique_ptr<ScalingSampler> make_scaling_sampler(Backend& gpu_backend);

}  // namespace gpu

}  // namespace attnlab
