// What the GPU backend, its bench and its scaling sampler share (engine/gpu only): the GL context,
// the driver's buffer limit and the kernels, built once per backend and kept while any of the
// three lives.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/attention/bench.hpp"
#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gl_objects.hpp"
#include "engine/gpu/gpu_backend.hpp"
#include "engine/gpu/gpu_dense.hpp"
#include "engine/gpu/gpu_streaming.hpp"

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace attnlab::gpu {

struct Device {
  // Builds the kernels on `context` (made current here), or on the caller's current context when
  // null. Throws BackendUnavailable when that context has no compute shaders, GpuError when a
  // kernel does not build.
  Device(std::unique_ptr<HeadlessContext> context, const GpuBackendOptions& options);
  // Makes its own context current first: another backend's context may be the current one, and
  // deleting there would delete that context's objects of the same names.
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  // The device's context current on this thread (nothing to do on the caller's own context).
  void make_current();
  // The same before GL objects are deleted (destructors): a context that cannot be made current
  // any more is left as it is.
  void make_current_before_deleting() noexcept;
  DensePrograms dense_programs() const {
    return {scores, softmax, diagnostics, output, !software};
  }
  StreamingPrograms streaming_programs() const {
    // 16 384 rows: 256 workgroups, two on each multiprocessor of a large card.
    return {scores, stream_update, stream_output, stream_heat, stream_heat_rows,
            software ? std::size_t{1024} : std::size_t{16384}, stream_blocks.get()};
  }

  std::unique_ptr<HeadlessContext> context;  // first: destroyed after every GL object below
  std::size_t limit = 0;                     // bytes of the largest buffer the kernels use
  std::string renderer;
  bool software = false;      // the renderer runs on the CPU (is_software_renderer): llvmpipe's sizes
  bool shared_tiles = false;  // shaders/tile_dot.glsl's shared-memory tiles (GpuTiles)
  ComputeProgram scores, softmax, diagnostics, output;
  ComputeProgram stream_update, stream_output, stream_heat, stream_heat_rows;
  ComputeProgram scaling_dots, scaling_rows;
  std::unique_ptr<BlockKernels> stream_blocks;  // null where the per-row kernels stream (GpuStream)
  std::optional<FmaPeak> peak;  // measured on the first request
};

// The device behind a backend whose kind() is Gpu (made by make_gpu_backend_*).
std::shared_ptr<Device> device_of(Backend& gpu_backend);

}  // namespace attnlab::gpu
