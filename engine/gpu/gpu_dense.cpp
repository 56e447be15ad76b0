// The dense path on the GL compute backend (engine/gpu/gpu_dense.hpp): a DenseRun holds the
// buffers of one computation and runs it chunk of query rows by chunk, one method per stage.
#include "engine/gpu/gpu_dense.hpp"

#include "engine/attention/overflow_guard.hpp"
#include "engine/attention/stats.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace attnlab::gpu {

namespace {

// Adds the wall time of its scope to *into (after glFinish on both ends); does nothing for null.
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

// Adds the GPU's own time for the commands issued in its scope to *into (a GL_TIME_ELAPSED query;
// one may be active at a time); does nothing for null.
class KernelTimer {
public:
  explicit KernelTimer(double* into) : into_(into) {
    if (!into_) return;
    glGenQueries(1, &query_);
    glBeginQuery(GL_TIME_ELAPSED, query_);
  }
  ~KernelTimer() {
    if (!into_) return;
    glEndQuery(GL_TIME_ELAPSED);
    GLuint64 ns = 0;
    glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
    glDeleteQueries(1, &query_);
    *into_ += static_cast<double>(ns) * 1e-6;
  }
  KernelTimer(const KernelTimer&) = delete;
  KernelTimer& operator=(const KernelTimer&) = delete;

private:
  double* into_;
  GLuint query_ = 0;
};

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

}  // namespace

class DenseRun {
public:
  DenseRun(const DensePrograms& k, const Problem& p, size_t limit, StageTimes* timing);
  Result run();
  // ResidentDense's: every stage on the buffers as they are (keys uploaded once, queries where
  // the problem has more than one chunk of rows), timed into `timing`; and the result read back.
  void run_resident(StageTimes& timing);
  Result read_resident();  // one chunk of rows only
  bool one_chunk() const { return rows_per_chunk_ >= n_; }

private:
  void stages(size_t row0, size_t rows);
  void upload_keys();
  void upload_queries(size_t row0, size_t rows);
  void scores(size_t row0, size_t rows);
  void weights_on_gpu(size_t row0, size_t rows);
  void weights_on_cpu(size_t row0, size_t rows);
  void diagnostics(size_t rows);
  void output(size_t rows);
  void read_back(size_t row0, size_t rows);
  void statistics();

  const DensePrograms& k_;
  const Problem& p_;
  const Options& o_;
  StageTimes* timing_;
  Result r_;
  size_t n_, m_, dk4_, dv4_, m4_;
  size_t keys_per_chunk_ = 0, rows_per_chunk_ = 0;
  bool normalize_on_cpu_ = false;
  ScoreOverflowGuard guard_;
  // K chunks as given (keys × dk4), V chunks transposed (dv4 × keys, zero-padded): output.comp
  // computes A V as rows of A dotted with rows of Vᵀ.
  std::vector<Buffer> k_chunks_, vt_chunks_;
  std::vector<BufferTexture> k_textures_, vt_textures_;
  std::vector<size_t> chunk_keys_;
  // One chunk of query rows: Q, scores, logits, weights, saturation, output, visible-key counts,
  // diagnostics and the custom mask's cells.
  Buffer q_buf_, s_buf_, l_buf_, w_buf_, sat_buf_, o_buf_, visible_buf_, diag_buf_, mask_buf_;
  std::vector<float> staging_;
  std::vector<GLuint> visible_;
  bool resident_ = false;  // run_resident has uploaded the keys (and a single chunk's queries)
};

DenseRun::DenseRun(const DensePrograms& k, const Problem& p, size_t limit, StageTimes* timing)
    : k_(k), p_(p), o_(p.options), timing_(timing), r_(result_header(p)), guard_(p) {
  n_ = static_cast<size_t>(r_.n);
  m_ = static_cast<size_t>(r_.m);
  dk4_ = round4(static_cast<size_t>(r_.d_k));
  dv4_ = round4(static_cast<size_t>(r_.d_v));
  m4_ = round4(m_);
  const size_t widest = std::max(dk4_, dv4_) * sizeof(float);
  // Key chunks: K and V rows per buffer, a multiple of 4.
  keys_per_chunk_ = std::min(m4_, limit / widest / 4 * 4);
  if (keys_per_chunk_ < 4) {
    throw InputError("d_k = " + std::to_string(r_.d_k) + ", d_v = " + std::to_string(r_.d_v) +
                     ": four key rows do not fit the GPU's largest storage buffer (" + std::to_string(limit) +
                     " bytes); use --backend cpu");
  }
  // Row chunks: scores, logits, weights and saturation rows per buffer (one workgroup per row).
  const size_t row_bytes = std::max(m4_ * sizeof(float), widest);
  rows_per_chunk_ = std::min({n_, limit / row_bytes, size_t{65535}});
  if (rows_per_chunk_ < 1) {
    throw InputError("m = " + std::to_string(m_) + ": one row of scores does not fit the GPU's largest storage buffer (" +
                     std::to_string(limit) + " bytes); use --backend cpu");
  }
  r_.computed_by = {BackendKind::Gpu, BackendKind::Gpu, BackendKind::Gpu, {}};
  normalize_on_cpu_ = o_.normalizer == Normalizer::Sparsemax ||
                      !(r_.effective_temperature >= 1e-30 && r_.effective_temperature <= 1e30);
  if (normalize_on_cpu_) {
    r_.computed_by.weights = BackendKind::Cpu;
    r_.computed_by.why = o_.normalizer == Normalizer::Sparsemax
                             ? "sparsemax sorts each row, so the CPU computes the logits and weights"
                             : "s·T is outside float32's normal range, so the CPU divides in double";
  }
  const size_t cells = rows_per_chunk_ * m4_;
  q_buf_ = Buffer(rows_per_chunk_ * dk4_ * sizeof(float));
  s_buf_ = Buffer(cells * sizeof(float));
  l_buf_ = Buffer(cells * sizeof(float));
  w_buf_ = Buffer(cells * sizeof(float));
  sat_buf_ = Buffer(cells * sizeof(float));
  o_buf_ = Buffer(rows_per_chunk_ * dv4_ * sizeof(float));
  visible_buf_ = Buffer(rows_per_chunk_ * sizeof(GLuint));
  diag_buf_ = Buffer(rows_per_chunk_ * 4 * sizeof(float));
  mask_buf_ = Buffer(o_.mask.kind == MaskKind::Custom ? round4(rows_per_chunk_ * m_) : 4);
  staging_.resize(cells);
  visible_.resize(rows_per_chunk_);
  r_.scores.resize(r_.n, r_.m);
  r_.logits.resize(r_.n, r_.m);
  r_.weights.resize(r_.n, r_.m);
  r_.saturation.resize(r_.n, r_.m);
  r_.output.resize(r_.n, r_.d_v);
  r_.rows.resize(n_);
}

Result DenseRun::run() {
  upload_keys();
  for (size_t row0 = 0; row0 < n_; row0 += rows_per_chunk_) {
    const size_t rows = std::min(rows_per_chunk_, n_ - row0);
    upload_queries(row0, rows);
    stages(row0, rows);
    read_back(row0, rows);
  }
  statistics();
  return std::move(r_);
}

void DenseRun::run_resident(StageTimes& timing) {
  timing_ = &timing;
  if (!resident_) upload_keys();
  for (size_t row0 = 0; row0 < n_; row0 += rows_per_chunk_) {
    const size_t rows = std::min(rows_per_chunk_, n_ - row0);
    if (!resident_ || !one_chunk()) upload_queries(row0, rows);
    stages(row0, rows);
  }
  resident_ = true;
  timing_ = nullptr;
}

Result DenseRun::read_resident() {
  read_back(0, n_);
  statistics();
  return r_;
}

// The chunk's scores, weights (and diagnostics) and output, each timed where timing_ is set.
void DenseRun::stages(size_t row0, size_t rows) {
  {
    Stopwatch watch(timing_ ? &timing_->scores_ms : nullptr);
    scores(row0, rows);
  }
  {
    Stopwatch watch(timing_ ? &timing_->softmax_ms : nullptr);
    if (normalize_on_cpu_) weights_on_cpu(row0, rows);
    else weights_on_gpu(row0, rows);
    diagnostics(rows);
  }
  {
    Stopwatch watch(timing_ ? &timing_->output_ms : nullptr);
    output(rows);
  }
}

void DenseRun::upload_keys() {
  const size_t dk = static_cast<size_t>(r_.d_k);
  for (size_t first = 0; first < m_; first += keys_per_chunk_) {
    const size_t count = std::min(keys_per_chunk_, m_ - first);
    const auto keys = padded(p_.K.data() + first * dk, count, dk, dk, dk4_, round4(count));
    const auto vt = transposed_padded(p_.V, first, count, dv4_);
    k_chunks_.emplace_back(keys.size() * sizeof(float), keys.data());
    vt_chunks_.emplace_back(vt.size() * sizeof(float), vt.data());
    k_textures_.emplace_back(k_chunks_.back());
    vt_textures_.emplace_back(vt_chunks_.back());
    chunk_keys_.push_back(count);
  }
}

void DenseRun::upload_queries(size_t row0, size_t rows) {
  const size_t dk = static_cast<size_t>(r_.d_k);
  const auto q = padded(p_.Q.data() + row0 * dk, rows, dk, dk, dk4_, rows);
  q_buf_.upload(q.data(), q.size() * sizeof(float));
  if (o_.mask.kind == MaskKind::Custom) {
    std::vector<std::uint8_t> bytes(round4(rows * m_), 0);
    std::memcpy(bytes.data(), o_.mask.blocked.data() + row0 * m_, rows * m_);
    mask_buf_.upload(bytes.data(), bytes.size());
  }
}

// S = Q Kᵀ for the chunk, key chunk by key chunk; scores whose float32 sum could overflow then get
// their exact value on the CPU, as compute_cpu gives them (ScoreOverflowGuard).
void DenseRun::scores(size_t row0, size_t rows) {
  const BufferTexture q_tex(q_buf_);
  {
    KernelTimer kernels(timing_ && k_.kernel_timers ? &timing_->scores_kernel_ms : nullptr);
    for (size_t c = 0; c < k_chunks_.size(); ++c) {
      dispatch_scores(k_.scores, q_tex, k_textures_[c], s_buf_,
                      {static_cast<GLuint>(rows), static_cast<GLuint>(chunk_keys_[c]), static_cast<GLuint>(dk4_ / 4),
                       static_cast<GLuint>(m4_), static_cast<GLuint>(c * keys_per_chunk_ / 4)});
    }
  }
  check_gl("computing scores");
  if (!guard_.active()) return;
  s_buf_.download(staging_.data(), rows * m4_ * sizeof(float));
  bool redone = false;
  for (size_t i = 0; i < rows; ++i) {
    if (guard_.apply(static_cast<Eigen::Index>(row0 + i), 0, r_.m, staging_.data() + i * m4_) > 0) {
      r_.rows[row0 + i].scores_recomputed = redone = true;
      r_.computed_by.scores = BackendKind::Cpu;
      r_.computed_by.why = "scores near float32's limit are computed in double on the CPU";
    }
  }
  if (redone) s_buf_.upload(staging_.data(), rows * m4_ * sizeof(float));
}

// Logits (with the mask), weights and visible-key counts in softmax.comp.
void DenseRun::weights_on_gpu(size_t row0, size_t rows) {
  const BufferTexture s_tex(s_buf_, GL_R32F);
  k_.softmax.use();
  s_tex.bind(0);
  bind_buffers(1, {&l_buf_, &w_buf_, &mask_buf_, &visible_buf_});
  k_.softmax.set({{"m", static_cast<GLuint>(m_)},
                  {"stride", static_cast<GLuint>(m4_)},
                  {"row0", static_cast<GLuint>(row0)},
                  {"mask_kind", static_cast<GLuint>(o_.mask.kind)},
                  {"mask_param", static_cast<GLuint>(std::max(0, o_.mask.param))},
                  {"divisor", static_cast<float>(r_.effective_temperature)},
                  {"normalizer", static_cast<GLuint>(o_.normalizer)},
                  {"rows", static_cast<GLuint>(rows)}});
  dispatch(groups(rows, 64));
  check_gl("computing logits and weights");
}

// Logits and weights on the CPU from the GPU's scores, in double precision exactly like
// compute_cpu; the weights go back to the GPU for the diagnostics and the output.
void DenseRun::weights_on_cpu(size_t row0, size_t rows) {
  s_buf_.download(staging_.data(), rows * m4_ * sizeof(float));
  std::vector<float> w(rows * m4_, 0.0f);
  std::vector<double> x(m_);
  for (size_t i = 0; i < rows; ++i) {
    const auto gi = static_cast<Eigen::Index>(row0 + i);
    for (size_t j = 0; j < m_; ++j) {
      const auto jj = static_cast<Eigen::Index>(j);
      const bool blocked = o_.mask.is_blocked(gi, jj);
      const float score = staging_[i * m4_ + j];
      r_.logits(gi, jj) = logit_of(score, blocked, r_.effective_temperature);
      x[j] = blocked ? -std::numeric_limits<double>::infinity()
                     : std::max(score / r_.effective_temperature, std::numeric_limits<double>::lowest());
    }
    visible_[i] = normalize_row(o_.normalizer, x.data(), w.data() + i * m4_, r_.m) ? 1u : 0u;
  }
  w_buf_.upload(w.data(), w.size() * sizeof(float));
}

// Saturation a(1 − a) and the four row diagnostics in diagnostics.comp.
void DenseRun::diagnostics(size_t rows) {
  const BufferTexture w_floats(w_buf_, GL_R32F);
  k_.diagnostics.use();
  w_floats.bind(0);
  bind_buffers(1, {&sat_buf_, &diag_buf_});
  k_.diagnostics.set({{"m", static_cast<GLuint>(m_)},
                      {"stride", static_cast<GLuint>(m4_)},
                      {"normalizer", static_cast<GLuint>(o_.normalizer)},
                      {"rows", static_cast<GLuint>(rows)}});
  dispatch(groups(rows, 64));
  check_gl("computing saturation and row diagnostics");
}

// O = A V, value chunk by value chunk, accumulating after the first.
void DenseRun::output(size_t rows) {
  const BufferTexture w_tex(w_buf_);
  k_.output.use();
  w_tex.bind(0);
  bind_buffers(2, {&o_buf_});
  k_.output.set({{"rows", static_cast<GLuint>(rows)},
                 {"dv_vec4", static_cast<GLuint>(dv4_ / 4)},
                 {"w_stride", static_cast<GLuint>(m4_ / 4)}});
  KernelTimer kernels(timing_ && k_.kernel_timers ? &timing_->output_kernel_ms : nullptr);
  for (size_t c = 0; c < vt_chunks_.size(); ++c) {
    vt_textures_[c].bind(1);
    k_.output.set({{"keys_vec4", static_cast<GLuint>(round4(chunk_keys_[c]) / 4)},
                   {"w_col", static_cast<GLuint>(c * keys_per_chunk_ / 4)},
                   {"accumulate", static_cast<GLuint>(c > 0 ? 1 : 0)}});
    dispatch_tiles(k_.output, dv4_, rows);
  }
  check_gl("computing the output");
}

// Every stage of the chunk back into the Result, dropping the padding columns.
void DenseRun::read_back(size_t row0, size_t rows) {
  const auto stage = [&](const Buffer& b, Matrix& into) {
    b.download(staging_.data(), rows * m4_ * sizeof(float));
    for (size_t i = 0; i < rows; ++i) {
      std::memcpy(into.row(static_cast<Eigen::Index>(row0 + i)).data(), staging_.data() + i * m4_, m_ * sizeof(float));
    }
  };
  stage(s_buf_, r_.scores);
  if (!normalize_on_cpu_) stage(l_buf_, r_.logits);
  stage(w_buf_, r_.weights);
  stage(sat_buf_, r_.saturation);
  std::vector<float> out(rows * dv4_);
  o_buf_.download(out.data(), out.size() * sizeof(float));
  for (size_t i = 0; i < rows; ++i) {
    std::memcpy(r_.output.row(static_cast<Eigen::Index>(row0 + i)).data(), out.data() + i * dv4_,
                static_cast<size_t>(r_.d_v) * sizeof(float));
  }
  std::vector<float> diag(rows * 4);
  diag_buf_.download(diag.data(), diag.size() * sizeof(float));
  if (!normalize_on_cpu_) visible_buf_.download(visible_.data(), rows * sizeof(GLuint));
  for (size_t i = 0; i < rows; ++i) {
    RowDiagnostics& d = r_.rows[row0 + i];
    d.max_weight = diag[i * 4 + 0];
    d.entropy = diag[i * 4 + 1];
    d.effective_keys = diag[i * 4 + 2];
    d.jacobian_norm = diag[i * 4 + 3];
    d.saturated = d.max_weight >= 0.99;
    d.fully_masked = visible_[i] == 0;
    d.padding = o_.mask.is_padding_row(static_cast<Eigen::Index>(row0 + i));
  }
}

// The global statistics of the scores read back, as every path defines them (attention/stats.hpp).
void DenseRun::statistics() { r_.stats = dense_score_stats(r_.scores, o_.mask, r_.effective_temperature); }

ResidentDense::ResidentDense(const DensePrograms& programs, const Problem& p, size_t limit)
    : programs_(programs), p_(p), limit_(limit) {
  validate_problem(p);
  check_dense_fits(p.Q.rows(), p.K.rows());
  run_ = std::make_unique<DenseRun>(programs_, p, limit, nullptr);
}

ResidentDense::~ResidentDense() = default;

StageTimes ResidentDense::run() {
  StageTimes t;
  run_->run_resident(t);
  return t;
}

Result ResidentDense::result() {
  return run_->one_chunk() ? run_->read_resident() : compute_dense_gpu(programs_, p_, limit_, nullptr);
}

void set_sampler_units(const DensePrograms& k) {
  k.scores.use();
  k.scores.set("q_tex", GLint{0});
  k.scores.set("k_tex", GLint{1});
  k.output.use();
  k.output.set("w_tex", GLint{0});
  k.output.set("vt_tex", GLint{1});
  k.softmax.use();
  k.softmax.set("s_tex", GLint{0});
  k.diagnostics.use();
  k.diagnostics.set("w_tex", GLint{0});
  glUseProgram(0);
}

std::vector<float> padded(const float* src, size_t rows, size_t cols, size_t src_stride, size_t stride,
                          size_t padded_rows) {
  std::vector<float> out(padded_rows * stride, 0.0f);
  for (size_t r = 0; r < rows; ++r) std::memcpy(out.data() + r * stride, src + r * src_stride, cols * sizeof(float));
  return out;
}

void dispatch_scores(const ComputeProgram& scores, const BufferTexture& q, const BufferTexture& k, const Buffer& s,
                     const ScoresTile& tile) {
  scores.use();
  q.bind(0);
  k.bind(1);
  bind_buffers(2, {&s});
  scores.set({{"rows", tile.rows},
              {"keys", tile.keys},
              {"dk_vec4", tile.dk_vec4},
              {"s_stride", tile.s_stride},
              {"s_col", tile.s_col}});
  dispatch_tiles(scores, tile.keys, tile.rows);
}

void dispatch_tiles(const ComputeProgram& program, std::size_t columns, std::size_t rows) {
  GLint size[3] = {0, 0, 0};
  glGetProgramiv(program.id(), GL_COMPUTE_WORK_GROUP_SIZE, size);
  // Square blocks of TILE_BLOCK = TILE · TILE_GROUP (tile_dot.glsl): the workgroup's width in
  // invocations of TILE columns each (its height may hold more invocations of fewer rows).
  constexpr std::size_t kTile = 8;  // TILE in tile_dot.glsl
  const std::size_t block = kTile * static_cast<std::size_t>(size[0]);
  dispatch(groups(columns, block), groups(rows, block));
}

Result compute_dense_gpu(const DensePrograms& programs, const Problem& p, size_t limit, StageTimes* timing) {
  validate_problem(p);
  check_dense_fits(p.Q.rows(), p.K.rows());
  return DenseRun(programs, p, limit, timing).run();
}

}  // namespace attnlab::gpu
