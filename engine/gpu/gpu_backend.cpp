// The GL compute backend: uploads Q, K, V, runs shaders/scores.comp, softmax.comp,
// diagnostics.comp and output.comp over tiles that respect the driver's storage-buffer limit,
// and reads every stage back into the same Result as compute_cpu.
//
// Sparsemax needs a sort per row, and an effective temperature outside float32's normal range
// cannot divide on the GPU, so for those the logits and weights are computed on the CPU from the
// GPU's scores (exactly as compute_cpu does) and the GPU does the rest.
#include "engine/gpu/gpu_backend.hpp"

#include "engine/cpu/cpu_internal.hpp"
#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gl_objects.hpp"
#include "engine/gpu/gpu_streaming.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace attnlab {

namespace {

using gpu::Buffer;
using gpu::BufferTexture;
using gpu::ComputeProgram;

size_t round4(size_t x) { return (x + 3) / 4 * 4; }
GLuint groups(size_t items, size_t per_group) { return static_cast<GLuint>((items + per_group - 1) / per_group); }

class Stopwatch {
public:
  explicit Stopwatch(double* into) : into_(into) {
    if (into_) {
      glFinish();
      start_ = std::chrono::steady_clock::now();
    }
  }
  ~Stopwatch() {
    if (!into_) return;
    glFinish();
    *into_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;

private:
  double* into_;
  std::chrono::steady_clock::time_point start_;
};

// Copies `rows` rows of `cols` floats from `src` (row stride src_stride) into a zero-padded
// staging vector with row stride `stride`.
std::vector<float> padded(const float* src, size_t rows, size_t cols, size_t src_stride, size_t stride,
                          size_t padded_rows) {
  std::vector<float> out(padded_rows * stride, 0.0f);
  for (size_t r = 0; r < rows; ++r) std::memcpy(out.data() + r * stride, src + r * src_stride, cols * sizeof(float));
  return out;
}

// Keys [first, first + count) of V (m × d_v) transposed: a zero-padded dv4 × round4(count) block.
std::vector<float> transposed_padded(const Matrix& V, size_t first, size_t count, size_t dv4) {
  const size_t keys4 = round4(count), dv = static_cast<size_t>(V.cols());
  std::vector<float> out(dv4 * keys4, 0.0f);
  for (size_t j = 0; j < count; ++j) {
    const float* row = V.data() + (first + j) * dv;
    for (size_t c = 0; c < dv; ++c) out[c * keys4 + j] = row[c];
  }
  return out;
}

// Welford's running mean and squared deviations, as compute_cpu keeps its statistics.
void accumulate(MomentStats& s, double& mean, double& m2, double v) {
  if (s.count == 0) s.min = s.max = v;
  s.min = std::min(s.min, v);
  s.max = std::max(s.max, v);
  ++s.count;
  const double delta = v - mean;
  mean += delta / static_cast<double>(s.count);
  m2 += delta * (v - mean);
}

void finish(MomentStats& s, double mean, double m2) {
  if (s.count == 0) return;
  s.mean = mean;
  s.std = std::sqrt(std::max(0.0, m2 / static_cast<double>(s.count)));
}

class GpuBackend;

class GpuScalingSampler final : public ScalingSampler {
public:
  GpuScalingSampler(const ComputeProgram& dots, const ComputeProgram& rows, size_t limit, gpu::HeadlessContext* context)
      : dots_(dots), rows_(rows), limit_(limit), context_(context) {}
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
    scores_ = ComputeProgram("scores.comp");
    softmax_ = ComputeProgram("softmax.comp");
    diagnostics_ = ComputeProgram("diagnostics.comp");
    output_ = ComputeProgram("output.comp");
    // Texture units of the kernels' samplers (fixed: each kernel binds its textures to 0 and 1).
    scores_.use();
    scores_.set("q_tex", GLint{0});
    scores_.set("k_tex", GLint{1});
    output_.use();
    output_.set("w_tex", GLint{0});
    output_.set("vt_tex", GLint{1});
    stream_update_ = ComputeProgram("stream_update.comp");
    stream_output_ = ComputeProgram("stream_output.comp");
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

  BackendKind kind() const override { return BackendKind::Gpu; }
  std::string device() const override { return renderer_; }
  std::string description() const override { return "GPU: " + renderer_; }
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

private:
  Result run(const Problem& p, StageTimes* timing);
  gpu::StreamingPrograms streaming_programs() const {
    return {scores_, stream_update_, stream_output_, stream_heat_, stream_heat_rows_};
  }

  std::unique_ptr<gpu::HeadlessContext> context_;
  size_t limit_ = 0;
  std::string renderer_;
  ComputeProgram scores_, softmax_, diagnostics_, output_, scaling_dots_, scaling_rows_;
  ComputeProgram stream_update_, stream_output_, stream_heat_, stream_heat_rows_;
};

Result GpuBackend::run(const Problem& p, StageTimes* timing) {
  validate_problem(p);
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  check_dense_fits(n, m);
  if (context_) context_->make_current();
  const Options& o = p.options;

  Result r = result_header(p);
  r.computed_by = {BackendKind::Gpu, BackendKind::Gpu, BackendKind::Gpu, {}};
  r.scores.resize(n, m);
  r.logits.resize(n, m);
  r.weights.resize(n, m);
  r.saturation.resize(n, m);
  r.output.resize(n, r.d_v);
  r.rows.resize(static_cast<size_t>(n));

  const size_t dk4 = round4(static_cast<size_t>(r.d_k)), dv4 = round4(static_cast<size_t>(r.d_v));
  const size_t m4 = round4(static_cast<size_t>(m));
  const size_t widest = std::max(dk4, dv4) * sizeof(float);

  // Key chunks: K and V rows per buffer, a multiple of 4.
  const size_t keys_per_chunk = std::min(m4, limit_ / widest / 4 * 4);
  if (keys_per_chunk < 4) {
    throw InputError("d_k = " + std::to_string(r.d_k) + ", d_v = " + std::to_string(r.d_v) +
                     ": four key rows do not fit the GPU's largest storage buffer (" + std::to_string(limit_) +
                     " bytes); use --backend cpu");
  }
  // Row chunks: scores, logits, weights and saturation rows per buffer (one workgroup per row).
  const size_t row_bytes = std::max(m4 * sizeof(float), widest);
  const size_t rows_per_chunk = std::min({static_cast<size_t>(n), limit_ / row_bytes, size_t{65535}});
  if (rows_per_chunk < 1) {
    throw InputError("m = " + std::to_string(m) + ": one row of scores does not fit the GPU's largest storage buffer (" +
                     std::to_string(limit_) + " bytes); use --backend cpu");
  }

  // K chunks as given (keys × dk4), V chunks transposed (dv4 × keys, zero-padded): output.comp
  // computes A V as rows of A dotted with rows of Vᵀ.
  std::vector<Buffer> k_chunks, vt_chunks;
  std::vector<BufferTexture> k_textures, vt_textures;
  std::vector<size_t> chunk_keys;
  for (size_t first = 0; first < static_cast<size_t>(m); first += keys_per_chunk) {
    const size_t count = std::min(keys_per_chunk, static_cast<size_t>(m) - first);
    const auto k = padded(p.K.data() + first * static_cast<size_t>(r.d_k), count, static_cast<size_t>(r.d_k),
                          static_cast<size_t>(r.d_k), dk4, round4(count));
    const auto vt = transposed_padded(p.V, first, count, dv4);
    k_chunks.emplace_back(k.size() * sizeof(float), k.data());
    vt_chunks.emplace_back(vt.size() * sizeof(float), vt.data());
    k_textures.emplace_back(k_chunks.back());
    vt_textures.emplace_back(vt_chunks.back());
    chunk_keys.push_back(count);
  }

  const size_t cells = rows_per_chunk * m4;
  Buffer q_buf(rows_per_chunk * dk4 * sizeof(float));
  Buffer s_buf(cells * sizeof(float)), l_buf(cells * sizeof(float)), w_buf(cells * sizeof(float)),
      sat_buf(cells * sizeof(float));
  // Q and the weights as vec4 texels for the tiled products; S and the weights as float texels for
  // the row kernels (softmax.comp, diagnostics.comp).
  const BufferTexture q_tex(q_buf), w_tex(w_buf), s_tex(s_buf, GL_R32F), w_floats(w_buf, GL_R32F);
  Buffer o_buf(rows_per_chunk * dv4 * sizeof(float));
  Buffer visible_buf(rows_per_chunk * sizeof(GLuint)), diag_buf(rows_per_chunk * 4 * sizeof(float));
  const bool custom = o.mask.kind == MaskKind::Custom;
  Buffer mask_buf(custom ? round4(rows_per_chunk * static_cast<size_t>(m)) : 4);

  const float divisor = static_cast<float>(r.effective_temperature);
  const bool normalize_on_cpu = o.normalizer == Normalizer::Sparsemax ||
                                !(r.effective_temperature >= 1e-30 && r.effective_temperature <= 1e30);
  if (normalize_on_cpu) {
    r.computed_by.weights = BackendKind::Cpu;
    r.computed_by.why = o.normalizer == Normalizer::Sparsemax
                            ? "sparsemax sorts each row, so the CPU computes the logits and weights"
                            : "s·T is outside float32's normal range, so the CPU divides in double";
  }
  const auto normalizer = static_cast<GLuint>(o.normalizer);
  std::vector<float> staging(cells), output_staging;
  std::vector<float> diag(rows_per_chunk * 4);
  std::vector<GLuint> visible(rows_per_chunk);
  std::vector<double> x(static_cast<size_t>(m));
  const double neg_inf = -std::numeric_limits<double>::infinity();
  const detail::ScoreOverflowGuard guard(p);

  for (size_t row0 = 0; row0 < static_cast<size_t>(n); row0 += rows_per_chunk) {
    const size_t rows = std::min(rows_per_chunk, static_cast<size_t>(n) - row0);
    const auto q = padded(p.Q.data() + row0 * static_cast<size_t>(r.d_k), rows, static_cast<size_t>(r.d_k),
                          static_cast<size_t>(r.d_k), dk4, rows);
    q_buf.upload(q.data(), q.size() * sizeof(float));
    if (custom) {
      std::vector<std::uint8_t> bytes(round4(rows * static_cast<size_t>(m)), 0);
      std::memcpy(bytes.data(), o.mask.blocked.data() + row0 * static_cast<size_t>(m), rows * static_cast<size_t>(m));
      mask_buf.upload(bytes.data(), bytes.size());
    }
    {
      Stopwatch watch(timing ? &timing->scores_ms : nullptr);
      scores_.use();
      q_tex.bind(0);
      s_buf.bind(2);
      scores_.set("rows", static_cast<GLuint>(rows));
      scores_.set("dk_vec4", static_cast<GLuint>(dk4 / 4));
      scores_.set("s_stride", static_cast<GLuint>(m4));
      for (size_t c = 0; c < k_chunks.size(); ++c) {
        k_textures[c].bind(1);
        scores_.set("keys", static_cast<GLuint>(chunk_keys[c]));
        scores_.set("s_col", static_cast<GLuint>(c * keys_per_chunk / 4));
        gpu::dispatch(groups(chunk_keys[c], 64), groups(rows, 64));
      }
      gpu::check_gl("computing scores");
      if (guard.active()) {
        // Scores whose float32 sum may overflow get their exact value, as on the CPU.
        s_buf.download(staging.data(), rows * m4 * sizeof(float));
        bool redone = false;
        for (size_t i = 0; i < rows; ++i) {
          const auto gi = static_cast<Eigen::Index>(row0 + i);
          if (guard.apply(gi, 0, m, staging.data() + i * m4) > 0) {
            r.rows[row0 + i].scores_recomputed = redone = true;
            r.computed_by.scores = BackendKind::Cpu;
            r.computed_by.why = "scores near float32's limit are computed in double on the CPU";
          }
        }
        if (redone) s_buf.upload(staging.data(), rows * m4 * sizeof(float));
      }
    }
    {
      Stopwatch watch(timing ? &timing->softmax_ms : nullptr);
      if (!normalize_on_cpu) {
        softmax_.use();
        s_tex.bind(0);
        l_buf.bind(1);
        w_buf.bind(2);
        mask_buf.bind(3);
        visible_buf.bind(4);
        softmax_.set("m", static_cast<GLuint>(m));
        softmax_.set("stride", static_cast<GLuint>(m4));
        softmax_.set("row0", static_cast<GLuint>(row0));
        softmax_.set("mask_kind", static_cast<GLuint>(o.mask.kind));
        softmax_.set("mask_param", static_cast<GLuint>(std::max(0, o.mask.param)));
        softmax_.set("divisor", divisor);
        softmax_.set("normalizer", normalizer);
        softmax_.set("rows", static_cast<GLuint>(rows));
        gpu::dispatch(groups(rows, 64));
        gpu::check_gl("computing logits and weights");
      } else {
        // On the CPU from the GPU's scores, in double precision exactly like compute_cpu.
        s_buf.download(staging.data(), rows * m4 * sizeof(float));
        std::vector<float> w(rows * m4, 0.0f);
        const float float_inf = std::numeric_limits<float>::infinity();
        for (size_t i = 0; i < rows; ++i) {
          const size_t gi = row0 + i;
          for (size_t j = 0; j < static_cast<size_t>(m); ++j) {
            const bool blocked = o.mask.is_blocked(static_cast<Eigen::Index>(gi), static_cast<Eigen::Index>(j));
            float& logit = r.logits(static_cast<Eigen::Index>(gi), static_cast<Eigen::Index>(j));
            if (blocked) {
              x[j] = neg_inf;
              logit = -float_inf;
            } else {
              const double l = staging[i * m4 + j] / r.effective_temperature;
              x[j] = std::max(l, std::numeric_limits<double>::lowest());
              logit = fits_float(l) ? static_cast<float>(l) : l > 0 ? float_inf : -float_inf;
            }
          }
          visible[i] = normalize_row(o.normalizer, x.data(), w.data() + i * m4, m) ? 1u : 0u;
        }
        w_buf.upload(w.data(), w.size() * sizeof(float));
      }
      diagnostics_.use();
      w_floats.bind(0);
      sat_buf.bind(1);
      diag_buf.bind(2);
      diagnostics_.set("m", static_cast<GLuint>(m));
      diagnostics_.set("stride", static_cast<GLuint>(m4));
      diagnostics_.set("normalizer", normalizer);
      diagnostics_.set("rows", static_cast<GLuint>(rows));
      gpu::dispatch(groups(rows, 64));
      gpu::check_gl("computing saturation and row diagnostics");
    }
    {
      Stopwatch watch(timing ? &timing->output_ms : nullptr);
      output_.use();
      w_tex.bind(0);
      o_buf.bind(2);
      output_.set("rows", static_cast<GLuint>(rows));
      output_.set("dv_vec4", static_cast<GLuint>(dv4 / 4));
      output_.set("w_stride", static_cast<GLuint>(m4 / 4));
      for (size_t c = 0; c < vt_chunks.size(); ++c) {
        vt_textures[c].bind(1);
        output_.set("keys_vec4", static_cast<GLuint>(round4(chunk_keys[c]) / 4));
        output_.set("w_col", static_cast<GLuint>(c * keys_per_chunk / 4));
        output_.set("accumulate", static_cast<GLuint>(c > 0 ? 1 : 0));
        gpu::dispatch(groups(dv4, 64), groups(rows, 64));
      }
      gpu::check_gl("computing the output");
    }

    // Read every stage back, dropping the padding columns.
    auto read_back = [&](const Buffer& b, Matrix& into) {
      b.download(staging.data(), rows * m4 * sizeof(float));
      for (size_t i = 0; i < rows; ++i) {
        std::memcpy(into.row(static_cast<Eigen::Index>(row0 + i)).data(), staging.data() + i * m4,
                    static_cast<size_t>(m) * sizeof(float));
      }
    };
    read_back(s_buf, r.scores);
    if (!normalize_on_cpu) read_back(l_buf, r.logits);
    read_back(w_buf, r.weights);
    read_back(sat_buf, r.saturation);
    output_staging.resize(rows * dv4);
    o_buf.download(output_staging.data(), rows * dv4 * sizeof(float));
    for (size_t i = 0; i < rows; ++i) {
      std::memcpy(r.output.row(static_cast<Eigen::Index>(row0 + i)).data(), output_staging.data() + i * dv4,
                  static_cast<size_t>(r.d_v) * sizeof(float));
    }
    diag_buf.download(diag.data(), rows * 4 * sizeof(float));
    if (!normalize_on_cpu) visible_buf.download(visible.data(), rows * sizeof(GLuint));
    for (size_t i = 0; i < rows; ++i) {
      RowDiagnostics& d = r.rows[row0 + i];
      d.max_weight = diag[i * 4 + 0];
      d.entropy = diag[i * 4 + 1];
      d.effective_keys = diag[i * 4 + 2];
      d.jacobian_norm = diag[i * 4 + 3];
      d.saturated = d.max_weight >= 0.99;
      d.fully_masked = visible[i] == 0;
      d.padding = o.mask.is_padding_row(static_cast<Eigen::Index>(row0 + i));
    }
  }

  // Global statistics in double precision, exactly as compute_cpu defines them.
  double s_mean = 0, s_m2 = 0, l_mean = 0, l_m2 = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      const double s = r.scores(i, j);
      accumulate(r.stats.scores, s_mean, s_m2, s);
      // The visible scores; logits = scores / (s·T) follow from them (as on the CPU), which
      // stays finite where the logits' squares would overflow (T = 1e-300).
      if (!o.mask.is_blocked(i, j)) accumulate(r.stats.logits, l_mean, l_m2, s);
    }
  }
  finish(r.stats.scores, s_mean, s_m2);
  finish(r.stats.logits, l_mean, l_m2);
  const double d = r.effective_temperature;
  r.stats.logits.mean /= d;
  r.stats.logits.std /= d;
  r.stats.logits.min /= d;
  r.stats.logits.max /= d;
  return r;
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
  auto context = std::make_unique<gpu::HeadlessContext>();
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
