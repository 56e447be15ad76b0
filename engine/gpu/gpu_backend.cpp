// The GL compute backend: builds the kernels once on a context with compute shaders, finds the
// driver's buffer limit, and runs the dense path (gpu_dense.cpp), the streaming path
// (gpu_streaming.cpp) and the d_k scaling sampler on them.
#include "engine/gpu/gpu_backend.hpp"

#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gl_objects.hpp"
#include "engine/gpu/gpu_dense.hpp"
#include "engine/gpu/gpu_fma_peak.hpp"
#include "engine/gpu/gpu_streaming.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace attnlab {

namespace {

using gpu::Buffer;
using gpu::BufferTexture;
using gpu::ComputeProgram;
using gpu::groups;

class GpuBackend;

// Before the GL objects of a backend on `context` are deleted. Another backend's context may be
// the current one, and deleting there would delete that context's objects of the same names.
void make_current_before_deleting(gpu::HeadlessContext* context) noexcept {
  if (!context) return;
  try {
    context->make_current();
  } catch (const BackendUnavailable&) {
  }
}

class GpuScalingSampler final : public ScalingSampler {
public:
  GpuScalingSampler(const ComputeProgram& dots, const ComputeProgram& rows, size_t limit, gpu::HeadlessContext* context)
      : dots_(dots), rows_(rows), limit_(limit), context_(context) {}
  ~GpuScalingSampler() override { make_current_before_deleting(context_); }
  void sample(const ScalingOptions& o, int d_k, long long first_trial, long long count, ScalingSums& sums) override;

private:
  const ComputeProgram& dots_;
  const ComputeProgram& rows_;
  size_t limit_;
  gpu::HeadlessContext* context_;
  Buffer partial_, row_figures_, histogram_;
};

class GpuBackend final : public Backend {
public:
  GpuBackend(std::unique_ptr<gpu::HeadlessContext> context, const GpuBackendOptions& options)
      : context_(std::move(context)) {
    std::string why;
    if (!gpu::current_context_has_compute(&why)) throw BackendUnavailable(why);
    GLint64 block = 0;
    glGetInteger64v(GL_MAX_SHADER_STORAGE_BLOCK_SIZE, &block);
    limit_ = block > 0 ? static_cast<size_t>(block) : size_t{128} << 20;
    limit_ = std::min(limit_, size_t{1} << 30);  // indices in the kernels are 32-bit
    // The kernels read buffers as buffer textures, some as R32F (one float per texel), whose
    // size limit is in texels.
    GLint texels = 0;
    glGetIntegerv(GL_MAX_TEXTURE_BUFFER_SIZE, &texels);
    if (texels > 0) limit_ = std::min(limit_, static_cast<size_t>(texels) * sizeof(float));
    if (options.max_buffer_bytes > 0) limit_ = std::min(limit_, options.max_buffer_bytes);
    const char* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    renderer_ = renderer ? renderer : "unknown renderer";
    // llvmpipe suspends a whole workgroup at each barrier, which the shared-memory tiles need.
    shared_tiles_ = options.tiles == GpuTiles::Shared ||
                    (options.tiles == GpuTiles::Auto && !gpu::is_software_renderer(renderer_));
    const std::string tiles = shared_tiles_ ? "#define TILE_SHARED 1\n" : "";
    scores_ = ComputeProgram("scores.comp", tiles);
    softmax_ = ComputeProgram("softmax.comp");
    diagnostics_ = ComputeProgram("diagnostics.comp");
    output_ = ComputeProgram("output.comp", tiles);
    // Texture units of the kernels' samplers (fixed: each kernel binds its textures to 0 and 1).
    scores_.use();
    scores_.set("q_tex", GLint{0});
    scores_.set("k_tex", GLint{1});
    output_.use();
    output_.set("w_tex", GLint{0});
    output_.set("vt_tex", GLint{1});
    stream_update_ = ComputeProgram("stream_update.comp");
    stream_output_ = ComputeProgram("stream_output.comp", tiles);
    stream_heat_ = ComputeProgram("stream_heat.comp");
    stream_heat_rows_ = ComputeProgram("stream_heat_rows.comp");
    softmax_.use();
    softmax_.set("s_tex", GLint{0});
    diagnostics_.use();
    diagnostics_.set("w_tex", GLint{0});
    stream_update_.use();
    stream_update_.set("s_tex", GLint{0});
    stream_output_.use();
    stream_output_.set("p_tex", GLint{0});
    stream_output_.set("vt_tex", GLint{1});
    glUseProgram(0);
    scaling_dots_ = ComputeProgram("scaling_dots.comp");
    scaling_rows_ = ComputeProgram("scaling_rows.comp");
  }

  ~GpuBackend() override { make_current_before_deleting(context_.get()); }

  BackendKind kind() const override { return BackendKind::Gpu; }
  std::string device() const override { return renderer_; }
  std::string description() const override { return "GPU: " + renderer_; }
  std::string kernels() const override { return shared_tiles_ ? "shared-memory tiles" : "texture tiles"; }
  Result compute(const Problem& p) override { return run(p, nullptr); }
  // The GPU pipeline keeps every stage (its buffers hold them anyway).
  Result compute_keeping(const Problem& p, const DenseStages&) override { return run(p, nullptr); }
  StageTimes time_stages(const Problem& p) override {
    StageTimes t;
    run(p, &t);
    return t;
  }
  std::unique_ptr<ScalingSampler> scaling_sampler() override {
    return std::make_unique<GpuScalingSampler>(scaling_dots_, scaling_rows_, limit_, context_.get());
  }
  Result compute_streaming(const Problem& p, const StreamingOptions& options) override {
    if (context_) context_->make_current();
    return gpu::compute_streaming_gpu(streaming_programs(), p, options, limit_);
  }
  // The streaming path without the heatmap (output, rows and stats), timed as one fused stage.
  StageTimes time_streaming(const Problem& p) override {
    if (context_) context_->make_current();
    StreamingOptions options;
    options.heatmap_rows = options.heatmap_cols = 0;
    glFinish();
    const auto start = std::chrono::steady_clock::now();
    gpu::compute_streaming_gpu(streaming_programs(), p, options, limit_);
    StageTimes t;
    t.fused = true;
    t.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return t;
  }
  const FmaPeak& fma_peak() override {
    if (!peak_) {
      if (context_) context_->make_current();
      peak_ = gpu::measure_fma_peak();
    }
    return *peak_;
  }

private:
  Result run(const Problem& p, StageTimes* timing);
  gpu::StreamingPrograms streaming_programs() const {
    return {scores_, stream_update_, stream_output_, stream_heat_, stream_heat_rows_};
  }

  std::unique_ptr<gpu::HeadlessContext> context_;
  size_t limit_ = 0;
  std::string renderer_;
  bool shared_tiles_ = false;
  std::optional<FmaPeak> peak_;
  ComputeProgram scores_, softmax_, diagnostics_, output_, scaling_dots_, scaling_rows_;
  ComputeProgram stream_update_, stream_output_, stream_heat_, stream_heat_rows_;
};

Result GpuBackend::run(const Problem& p, StageTimes* timing) {
  if (context_) context_->make_current();
  return gpu::compute_dense_gpu({scores_, softmax_, diagnostics_, output_}, p, limit_, timing);
}

void GpuScalingSampler::sample(const ScalingOptions& o, int d_k, long long first_trial, long long count,
                               ScalingSums& sums) {
  if (context_) context_->make_current();
  const size_t blocks = (static_cast<size_t>(d_k) + 3) / 4;
  const size_t chunk_blocks = 64;
  const size_t chunks = (blocks + chunk_blocks - 1) / chunk_blocks;
  const size_t dots_per_trial = static_cast<size_t>(o.queries) * static_cast<size_t>(o.keys) * chunks;
  // Batches bounded by the buffer limit and by ~2^22 invocations per dispatch.
  const size_t max_dots = std::min(limit_ / sizeof(float), size_t{1} << 22);
  const size_t batch = std::max<size_t>(1, max_dots / dots_per_trial);
  if (dots_per_trial > max_dots) {
    throw InputError("--keys × --queries × d_k is too large for one GPU buffer; use fewer keys or queries");
  }
  const size_t need_partial = std::min(batch, static_cast<size_t>(count)) * dots_per_trial * sizeof(float);
  if (partial_.bytes() < need_partial) partial_ = Buffer(need_partial);
  const size_t need_rows = std::min(batch, static_cast<size_t>(count)) * static_cast<size_t>(o.queries) * 16;
  if (row_figures_.bytes() < need_rows) row_figures_ = Buffer(need_rows);
  if (histogram_.bytes() == 0) histogram_ = Buffer(kScalingHistogramBins * sizeof(GLuint));
  histogram_.clear();

  std::vector<float> figures;
  for (long long first = first_trial; first < first_trial + count; first += static_cast<long long>(batch)) {
    const size_t trials = std::min(batch, static_cast<size_t>(first_trial + count - first));
    const size_t invocations = trials * dots_per_trial;
    const GLuint total_groups = groups(invocations, 64);
    const GLuint gx = std::min<GLuint>(total_groups, 65535), gy = (total_groups + gx - 1) / gx;
    dots_.use();
    partial_.bind(0);
    dots_.set("seed", static_cast<GLuint>(o.seed), static_cast<GLuint>(o.seed >> 32));
    dots_.set("d_k", static_cast<GLuint>(d_k));
    dots_.set("first_trial", static_cast<GLuint>(first));
    dots_.set("trials", static_cast<GLuint>(trials));
    dots_.set("queries", static_cast<GLuint>(o.queries));
    dots_.set("keys", static_cast<GLuint>(o.keys));
    dots_.set("chunks", static_cast<GLuint>(chunks));
    dots_.set("chunk_blocks", static_cast<GLuint>(chunk_blocks));
    gpu::dispatch(gx, gy);
    gpu::check_gl("drawing the scaling demonstration's dot products");

    const size_t row_count = trials * static_cast<size_t>(o.queries);
    const GLuint row_groups = groups(row_count, 64);
    const GLuint rx = std::min<GLuint>(row_groups, 65535), ry = (row_groups + rx - 1) / rx;
    rows_.use();
    partial_.bind(0);
    row_figures_.bind(1);
    histogram_.bind(2);
    rows_.set("row_count", static_cast<GLuint>(row_count));
    rows_.set("keys", static_cast<GLuint>(o.keys));
    rows_.set("chunks", static_cast<GLuint>(chunks));
    rows_.set("root_dk", static_cast<float>(std::sqrt(static_cast<double>(d_k))));
    rows_.set("bins", static_cast<GLuint>(kScalingHistogramBins));
    rows_.set("range", static_cast<float>(kScalingHistogramRange));
    gpu::dispatch(rx, ry);
    gpu::check_gl("summarizing the scaling demonstration's rows");

    figures.resize(row_count * 4);
    row_figures_.download(figures.data(), figures.size() * sizeof(float));
    for (size_t i = 0; i < row_count; ++i) {
      const double vu = figures[i * 4], vs = figures[i * 4 + 1], mu = figures[i * 4 + 2], ms = figures[i * 4 + 3];
      sums.rows += 1;
      sums.unscaled_var += vu;
      sums.scaled_var += vs;
      sums.unscaled_max += mu;
      sums.unscaled_max_sq += mu * mu;
      sums.scaled_max += ms;
      sums.scaled_max_sq += ms * ms;
    }
  }
  std::vector<GLuint> hist(kScalingHistogramBins);
  histogram_.download(hist.data(), hist.size() * sizeof(GLuint));
  for (int b = 0; b < kScalingHistogramBins; ++b) sums.histogram[static_cast<size_t>(b)] += hist[static_cast<size_t>(b)];
}

}  // namespace

std::unique_ptr<Backend> make_gpu_backend_headless(const GpuBackendOptions& options) {
  auto context = std::make_unique<gpu::HeadlessContext>(options.route);
  try {
    return std::make_unique<GpuBackend>(std::move(context), options);
  } catch (const gpu::GpuError& e) {
    throw BackendUnavailable(std::string("no GPU backend: ") + e.what());
  }
}

std::unique_ptr<Backend> make_gpu_backend_on_current_context(const GpuBackendOptions& options) {
  try {
    return std::make_unique<GpuBackend>(nullptr, options);
  } catch (const gpu::GpuError& e) {
    throw BackendUnavailable(std::string("no GPU backend: ") + e.what());
  }
}

}  // namespace attnlab
