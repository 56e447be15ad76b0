// The GL compute backend: builds the kernels once on a context with compute shaders, finds the
// driver's buffer limit (gpu::Device, gpu_device.hpp), and runs the dense path (gpu_dense.cpp) and
// the streaming path (gpu_streaming.cpp) on them.
#include "engine/gpu/gpu_backend.hpp"

#include "engine/gpu/gpu_device.hpp"

#include <algorithm>
#include <stdexcept>

namespace attnlab {

namespace gpu {

Device::Device(std::unique_ptr<HeadlessContext> own_context, const GpuBackendOptions& options)
    : context(std::move(own_context)) {
  std::string why;
  if (!current_context_has_compute(&why)) throw BackendUnavailable(why);
  GLint64 block = 0;
  glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
  limit = block > 0 ? static_cast<size_t>(block) : size_t{128} << 20;
  limit = std::min(limit, size_t{1} << 30);  // indices in the kernels are 32-bit
  // The kernels read buffers as buffer textures, some as R32F (one float per texel), whose
  // size limit is in texels.
  GLint texels = 0;
  glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
  if (texels > 0) limit = std::min(limit, static_cast<size_t>(texels) * sizeof(float));
  if (options.max_buffer_bytes > 0) limit = std::min(limit, options.max_buffer_bytes);
  const char* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
  renderer = name ? name : "unknown renderer";
  software = is_software_renderer(renderer);
  // llvmpipe suspends a whole workgroup at each barrier, which the shared-memory tiles need.
  shared_tiles = options.tiles == GpuTiles::Shared ||
                 (options.tiles == GpuTiles::Auto && !software);
  const std::string tiles = shared_tiles ? "#define TILE_SHARED 1\n" : "";
  scores = ComputeProgram("scores.comp", tiles);
  softmax = ComputeProgram("softmax.comp");
  diagnostics = ComputeProgram("diagnostics.comp");
  output = ComputeProgram("output.comp", tiles);
  stream_update = ComputeProgram("stream_update.comp");
  stream_output = ComputeProgram("stream_output.comp", tiles);
  stream_heat = ComputeProgram("stream_heat.comp");
  stream_heat_rows = ComputeProgram("stream_heat_rows.comp");
  // Texture units of the kernels' samplers (fixed: each kernel binds its textures to 0 and 1).
  set_sampler_units(dense_programs());
  stream_update.use();
  stream_update.set("s_tex", GLint{0});
  stream_output.use();
  stream_output.set("p_tex", GLint{0});
  stream_output.set("vt_tex", GLint{1});
  glUseProgram(0);
  // A workgroup per block of rows needs barriers too; on llvmpipe the per-row kernels are faster
  // (docs/PERFORMANCE.md, "The GPU backend on llvmpipe").
  if (options.stream == GpuStream::Blocks || (options.stream == GpuStream::Auto && !software)) {
    GLint shared_bytes = 0;
    glGetIntegerv(GL_MAX_COMPUTE_SHARED_MEMORY_SIZE, &shared_bytes);
    stream_blocks = std::make_unique<BlockKernels>(static_cast<size_t>(std::max(shared_bytes, 0)), options.block);
  }
  scaling_dots = ComputeProgram("scaling_dots.comp");
  scaling_rows = ComputeProgram("scaling_rows.comp");
}

Device::~Device() { make_current_before_deleting(); }

void Device::make_current_before_deleting() noexcept {
  if (!context) return;
  try {
    context->make_current();
  } catch (const BackendUnavailable&) {
  }
}

void Device::make_current() {
  if (context) context->make_current();
}

}  // namespace gpu

namespace {

class GpuBackend final : public Backend {
public:
  explicit GpuBackend(std::shared_ptr<gpu::Device> device) : device_(std::move(device)) {}

  BackendKind kind() const override { return BackendKind::Gpu; }
  std::string device() const override { return device_->renderer; }
  std::string description() const override { return "GPU: " + device_->renderer; }
  const std::shared_ptr<gpu::Device>& shared_device() const { return device_; }

protected:
  // The GPU pipeline keeps every stage (its buffers hold them anyway).
  Result run_dense(const Problem& p, const DenseStages&) override {
    device_->make_current();
    return gpu::compute_dense_gpu(device_->dense_programs(), p, device_->limit, nullptr);
  }
  Result run_streaming(const Problem& p, const StreamingOptions& options) override {
    device_->make_current();
    return gpu::compute_streaming_gpu(device_->streaming_programs(), p, options, device_->limit);
  }

private:
  std::shared_ptr<gpu::Device> device_;
};

std::unique_ptr<Backend> make_backend(std::unique_ptr<gpu::HeadlessContext> context, const GpuBackendOptions& options) {
  try {
    return std::make_unique<GpuBackend>(std::make_shared<gpu::Device>(std::move(context), options));
  } catch (const gpu::GpuError& e) {
    throw BackendUnavailable(std::string("no GPU backend: ") + e.what());
  }
}

}  // namespace

std::shared_ptr<gpu::Device> gpu::device_of(Backend& gpu_backend) {
  auto* backend = dynamic_cast<GpuBackend*>(&gpu_backend);
  if (!backend) throw std::logic_error("gpu::device_of: the backend is not the GPU backend");
  return backend->shared_device();
}

std::unique_ptr<Backend> make_gpu_backend_headless(const GpuBackendOptions& options) {
  return make_backend(std::make_unique<gpu::HeadlessContext>(options.route), options);
}

std::unique_ptr<Backend> make_gpu_backend_on_current_context(const GpuBackendOptions& options) {
  return make_backend(nullptr, options);
}

}  // namespace attnlab
