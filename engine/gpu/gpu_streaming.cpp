// The streaming path on the GPU, for each chunk of query rows, by one of two sets of kernels
// (GpuStream):
// - rows: each tile of keys runs scores.comp (S tile), stream_update.comp (online softmax: P =
//   exp((s − M')·c), rescaled sums, moments), stream_output.comp (O ← α·O + P·V) and, for the
//   heatmap, stream_heat.comp;
// - blocks: one dispatch of stream_block.comp, a workgroup per block of rows over every key tile
//   (FlashAttention-2's decomposition), the heatmap's pixels included.
// After the chunk, stream_heat_rows.comp adds its finished rows to the heatmap. Both leave the same
// per-row sums in the same buffers (streaming_layout.glsl, online_tile.glsl), and the formulas that
// turn them into diagnostics are every streaming path's (attention/online_softmax.hpp), so all agree.
// Key tiles that no row of a chunk (or block) can see are skipped where every score's statistics
// come from the Gram matrices (all_scores_source), as on the CPU.
#include "engine/gpu/gpu_streaming.hpp"

#include "engine/attention/online_softmax.hpp"
#include "engine/attention/overflow_guard.hpp"
#include "engine/attention/stats.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/gpu/gpu_dense.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <future>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace attnlab::gpu {

namespace {

using Index = Eigen::Index;

// The per-row buffers' layout, the same file the kernels include.
namespace layout {
using uint = unsigned;
#include "shaders/streaming_layout.glsl"
}  // namespace layout
constexpr size_t kSumsPerRow = layout::SUMS_PER_ROW;
constexpr size_t kFloatsPerRow = layout::FLOATS_PER_ROW;
constexpr size_t kMaxTileKeys = 1024;
// A chunk's own buffers (its rows' queries, scores, weights, output, sums, mask and heatmap
// rows) stay under this many bytes in all, whatever programs.chunk_rows allows: the GUI streams a
// long document with a 1024-column heatmap on a laptop's GPU too.
constexpr size_t kMaxChunkBytes = size_t{256} << 20;

// The sizes of one run: key tiles (a multiple of 64 keys) and chunks of query rows, each buffer
// under the driver's limit, and the heatmap's pixels.
struct Sizes {
  size_t n = 0, m = 0, dk = 0, dv = 0, dk4 = 0, dv4 = 0;
  size_t tile = 0, chunk = 0;  // keys per tile, query rows per chunk
  size_t hrows = 0, hcols = 0;
  bool heat = false, custom = false, indices_fit = false;
  const BlockKernels::Kernel* blocks = nullptr;  // stream_block.comp, or null for the per-row kernels
  double divisor = 1;
  float c = 0;  // 1/(s·T) as a normal float, or 0
  AllScores all_scores = AllScores::Tiles;  // where the statistics of every score come from
};

Sizes plan_sizes(const Problem& p, const StreamingOptions& options, const StreamingPrograms& programs, size_t limit) {
  Sizes z;
  z.n = static_cast<size_t>(p.Q.rows());
  z.m = static_cast<size_t>(p.K.rows());
  z.dk = static_cast<size_t>(p.Q.cols());
  z.dv = static_cast<size_t>(p.V.cols());
  z.dk4 = round4(z.dk);
  z.dv4 = round4(z.dv);
  z.divisor = effective_temperature(p.Q.cols(), p.options);
  z.c = fast_inverse_divisor(z.divisor);
  z.hrows = static_cast<size_t>(std::clamp<Index>(options.heatmap_rows, 0, p.Q.rows()));
  z.hcols = static_cast<size_t>(std::clamp<Index>(options.heatmap_cols, 0, p.K.rows()));
  z.heat = z.hrows > 0 && z.hcols > 0;
  z.custom = p.options.mask.kind == MaskKind::Custom;
  const size_t widest = std::max(z.dk4, z.dv4) * sizeof(float);
  const size_t heat_bytes = z.heat ? 3 * z.hcols * sizeof(float) : 0, custom_bytes = z.custom ? z.m : 0;
  z.tile = std::min({kMaxTileKeys, (z.m + 63) / 64 * 64, limit / widest / 64 * 64});
  // A workgroup per block of rows reads every key from one K and one V buffer, and needs no S or P:
  // its chunks are as many rows as their buffers allow.
  if (programs.blocks && z.m * widest <= limit) z.blocks = programs.blocks->get(z.dk4, z.dv4);
  const size_t row_bytes = (z.dk4 + z.dv4 + (z.blocks ? 0 : 2 * z.tile) + kFloatsPerRow + 1) * sizeof(float) +
                           heat_bytes + kSumsPerRow * sizeof(double) + custom_bytes;
  z.chunk = std::min({z.blocks ? z.n : programs.chunk_rows, kMaxChunkBytes / row_bytes, z.n, limit / widest,
                      limit / (kSumsPerRow * sizeof(double))});
  if (!z.blocks) z.chunk = std::min(z.chunk, z.tile > 0 ? limit / (z.tile * sizeof(float)) : 0);
  if (z.heat) z.chunk = std::min(z.chunk, limit / (z.hcols * sizeof(float)));
  if (z.custom) z.chunk = std::min(z.chunk, limit / z.m);
  const double u32 = static_cast<double>(std::numeric_limits<std::uint32_t>::max());
  z.indices_fit = static_cast<double>(z.m) * static_cast<double>(std::max<size_t>(z.hcols, 1)) < u32 &&
                  static_cast<double>(z.n) * static_cast<double>(std::max<size_t>(z.hrows, 1)) < u32;
  return z;
}

// Why the GPU's kernels cannot stream this problem (the CPU's streaming path then does), or null.
const char* cpu_reason(const Problem& p, const Sizes& z) {
  if (p.options.normalizer != Normalizer::Softmax) return "the GPU streams softmax only; other normalizers stream on the CPU";
  if (z.c == 0) return "1/(s·T) is outside float32's normal range, so the CPU streams in double";
  if (z.tile == 0 || z.chunk == 0 || !z.indices_fit) return "the problem does not fit the GPU's buffers, so the CPU streams it";
  return nullptr;
}

// K tiles as given (keys × dk4) and V tiles transposed (dv4 × keys, zero-padded), uploaded once.
struct KeyTiles {
  std::vector<Buffer> k, vt;
  std::vector<BufferTexture> k_tex, vt_tex;
  std::vector<size_t> keys;  // keys in each tile
};

KeyTiles upload_key_tiles(const Problem& p, const Sizes& z) {
  KeyTiles t;
  for (size_t first = 0; first < z.m; first += z.tile) {
    const size_t count = std::min(z.tile, z.m - first), keys4 = round4(count);
    std::vector<float> kt(count * z.dk4, 0.0f), vt(z.dv4 * keys4, 0.0f);
    for (size_t j = 0; j < count; ++j) {
      std::memcpy(kt.data() + j * z.dk4, p.K.row(static_cast<Index>(first + j)).data(), z.dk * sizeof(float));
      const float* v = p.V.row(static_cast<Index>(first + j)).data();
      for (size_t col = 0; col < z.dv; ++col) vt[col * keys4 + j] = v[col];
    }
    t.k.emplace_back(kt.size() * sizeof(float), kt.data());
    t.vt.emplace_back(vt.size() * sizeof(float), vt.data());
    t.k_tex.emplace_back(t.k.back());
    t.vt_tex.emplace_back(t.vt.back());
    t.keys.push_back(count);
  }
  return t;
}

// Every key of K (m × dk4) and of V (m × dv4), zero-padded, uploaded once: stream_block.comp's.
struct WholeKeys {
  Buffer k, v;
  BufferTexture k_tex, v_tex;
};

WholeKeys upload_whole_keys(const Problem& p, const Sizes& z) {
  WholeKeys w;
  const std::vector<float> k = padded(p.K.data(), z.m, z.dk, z.dk, z.dk4, z.m);
  const std::vector<float> v = padded(p.V.data(), z.m, z.dv, z.dv, z.dv4, z.m);
  w.k = Buffer(k.size() * sizeof(float), k.data());
  w.v = Buffer(v.size() * sizeof(float), v.data());
  w.k_tex = BufferTexture(w.k);
  w.v_tex = BufferTexture(w.v);
  return w;
}

// One streaming run: the buffers of a chunk of query rows against every key tile, run chunk by
// chunk into the Result.
class StreamRun {
public:
  StreamRun(const StreamingPrograms& k, const Problem& p, const StreamingOptions& options, const Sizes& z);
  // Runs every chunk into r (output, rows, stats, heatmap). Returns false, with r incomplete, when
  // some row has a score the float kernels cannot finish as the CPU does.
  bool run(Result& r);

private:
  void start_chunk(size_t row0, size_t rows);
  std::pair<size_t, size_t> visible_keys(size_t row0, size_t rows) const;
  void key_tile(size_t row0, size_t rows, size_t t);
  void row_blocks(size_t row0, size_t rows);
  void add_rows_to_heatmap(size_t row0, size_t rows);
  bool read_chunk(size_t row0, size_t rows, Result& r);
  void finish(Result& r, const ScoreMoments& all);

  const StreamingPrograms& k_;
  const Problem& p_;
  const StreamingOptions& options_;
  const Sizes z_;
  const KeyTiles keys_;    // the per-row kernels' tiles
  const WholeKeys whole_;  // stream_block.comp's keys
  Buffer q_buf_, s_buf_, p_buf_, o_buf_, sums_buf_, floats_buf_, flags_buf_, mask_buf_;
  Buffer hsum_buf_, hmax_buf_, frame_buf_, map_sum_, map_max_;
  BufferTexture q_tex_, p_tex_, s_tex_;
  std::vector<float> floats_init_, frame_init_, o_staging_, floats_;
  std::vector<double> sums_;
  std::vector<GLuint> flags_;
  ScoreMoments all_, visible_;
};

StreamRun::StreamRun(const StreamingPrograms& k, const Problem& p, const StreamingOptions& options, const Sizes& z)
    : k_(k),
      p_(p),
      options_(options),
      z_(z),
      keys_(z.blocks ? KeyTiles{} : upload_key_tiles(p, z)),
      whole_(z.blocks ? upload_whole_keys(p, z) : WholeKeys{}),
      q_buf_(z.chunk * z.dk4 * sizeof(float)),
      s_buf_(z.blocks ? 4 : z.chunk * z.tile * sizeof(float)),
      p_buf_(z.blocks ? 4 : z.chunk * z.tile * sizeof(float)),
      o_buf_(z.chunk * z.dv4 * sizeof(float)),
      sums_buf_(z.chunk * kSumsPerRow * sizeof(double)),
      floats_buf_(z.chunk * kFloatsPerRow * sizeof(float)),
      flags_buf_(z.chunk * sizeof(GLuint)),
      mask_buf_(z.custom ? round4(z.chunk * z.m) : 4),
      hsum_buf_((z.heat ? z.chunk * z.hcols : 1) * sizeof(float)),
      hmax_buf_((z.heat ? z.chunk * z.hcols : 1) * sizeof(float)),
      frame_buf_((z.heat ? z.chunk * z.hcols : 1) * sizeof(float)),
      map_sum_(z.heat ? z.hrows * z.hcols * sizeof(float) : 4),
      map_max_(z.heat ? z.hrows * z.hcols * sizeof(float) : 4),
      q_tex_(q_buf_),
      p_tex_(p_buf_),
      s_tex_(s_buf_, GL_R32F),
      floats_init_(z.chunk * kFloatsPerRow, 0.0f),
      frame_init_(z.heat ? z.chunk * z.hcols : 0, -kInfF),
      o_staging_(z.chunk * z.dv4),
      floats_(z.chunk * kFloatsPerRow),
      sums_(z.chunk * kSumsPerRow),
      flags_(z.chunk) {
  map_sum_.clear();
  map_max_.clear();
  for (size_t i = 0; i < z.chunk; ++i) {
    float* f = floats_init_.data() + i * kFloatsPerRow;
    f[layout::ROW_MAX] = -kInfF;
    f[layout::ROW_ALPHA] = 1.0f;
    f[layout::ALL_MIN] = kInfF;
    f[layout::ALL_MAX] = -kInfF;
    f[layout::VIS_MIN] = kInfF;
    f[layout::VIS_MAX] = -kInfF;
  }
}

bool StreamRun::run(Result& r) {
  // Every score's statistics from the Gram matrices on a CPU thread while the GPU streams (0.17 s
  // at 100 000 × 64 on host A: a third of what a card's run took before it skipped blocked tiles).
  std::future<ScoreMoments> gram;
  if (z_.all_scores == AllScores::Gram) {
    gram = std::async(std::launch::async, [this] { return all_score_moments(p_.Q, p_.K); });
  }
  for (size_t row0 = 0; row0 < z_.n; row0 += z_.chunk) {
    const size_t rows = std::min(z_.chunk, z_.n - row0);
    if (options_.cancel && options_.cancel->load()) throw Cancelled();
    start_chunk(row0, rows);
    if (z_.blocks) {
      row_blocks(row0, rows);
    } else {
      const auto [first, last] = visible_keys(row0, rows);
      for (size_t t = 0; t < keys_.keys.size(); ++t) {
        if (options_.cancel && options_.cancel->load()) throw Cancelled();
        const size_t key0 = t * z_.tile;
        if (key0 < last && key0 + keys_.keys[t] > first) key_tile(row0, rows, t);
      }
    }
    if (z_.heat) add_rows_to_heatmap(row0, rows);
    if (!read_chunk(row0, rows, r)) return false;
    if (options_.progress) options_.progress(static_cast<double>(row0 + rows) / static_cast<double>(z_.n));
  }
  finish(r, gram.valid() ? gram.get() : all_);
  return true;
}

// The chunk's queries uploaded, its sums, flags, output and heatmap rows reset.
void StreamRun::start_chunk(size_t row0, size_t rows) {
  const std::vector<float> q = padded(p_.Q.data() + row0 * z_.dk, rows, z_.dk, z_.dk, z_.dk4, rows);
  q_buf_.upload(q.data(), q.size() * sizeof(float));
  sums_buf_.clear();
  flags_buf_.clear();
  o_buf_.clear();
  floats_buf_.upload(floats_init_.data(), rows * kFloatsPerRow * sizeof(float));
  if (z_.heat) {
    hsum_buf_.clear();
    hmax_buf_.clear();
    frame_buf_.upload(frame_init_.data(), frame_init_.size() * sizeof(float));
  }
  if (z_.custom) {
    std::vector<std::uint8_t> bytes(round4(rows * z_.m), 0);
    std::memcpy(bytes.data(), p_.options.mask.blocked.data() + row0 * z_.m, rows * z_.m);
    mask_buf_.upload(bytes.data(), bytes.size());
  }
}

// The keys [first, last) that the chunk's rows may see, for skipping the key tiles outside: every
// key where the blocked cells' scores count in the statistics (AllScores::Tiles) or the mask is a
// custom one, else the union of the rows' visible ranges (empty when every row is fully blocked).
std::pair<size_t, size_t> StreamRun::visible_keys(size_t row0, size_t rows) const {
  if (z_.all_scores == AllScores::Tiles || z_.custom) return {0, z_.m};
  const Mask& mask = p_.options.mask;
  Index first = static_cast<Index>(z_.m), last = 0;
  for (size_t i = row0; i < row0 + rows; ++i) {
    Index a = 0, b = 0;
    mask.visible_range(static_cast<Index>(i), static_cast<Index>(z_.m), a, b);
    if (a < b) {
      first = std::min(first, a);
      last = std::max(last, b);
    }
  }
  return first < last ? std::pair{static_cast<size_t>(first), static_cast<size_t>(last)} : std::pair{z_.m, z_.m};
}

// The chunk's rows against key tile t: scores, the online-softmax step, the output, the heatmap.
void StreamRun::key_tile(size_t row0, size_t rows, size_t t) {
  const size_t key0 = t * z_.tile, count = keys_.keys[t];
  const Mask& mask = p_.options.mask;
  dispatch_scores(k_.scores, q_tex_, keys_.k_tex[t], s_buf_,
                  {static_cast<GLuint>(rows), static_cast<GLuint>(count), static_cast<GLuint>(z_.dk4 / 4),
                   static_cast<GLuint>(z_.tile), GLuint{0}});

  k_.update.use();
  s_tex_.bind(0);
  bind_buffers(1, {&p_buf_, &sums_buf_, &floats_buf_, &flags_buf_, &mask_buf_});
  k_.update.set({{"keys", count}, {"stride", z_.tile}, {"key0", key0}, {"row0", row0}, {"m", z_.m}, {"rows", rows},
                 {"mask_kind", static_cast<GLuint>(mask.kind)},
                 {"mask_param", static_cast<GLuint>(std::max(0, mask.param))},
                 {"c", z_.c}, {"all_scores", static_cast<GLuint>(z_.all_scores != AllScores::Gram)}});
  dispatch(groups(rows, 64));

  k_.output.use();
  p_tex_.bind(0);
  keys_.vt_tex[t].bind(1);
  bind_buffers(2, {&o_buf_, &floats_buf_});
  k_.output.set({{"rows", rows}, {"keys_vec4", round4(count) / 4}, {"dv_vec4", z_.dv4 / 4}, {"p_stride", z_.tile / 4}});
  dispatch_tiles(k_.output, z_.dv4, rows);

  if (z_.heat) {
    const Index m = static_cast<Index>(z_.m), hcols = static_cast<Index>(z_.hcols);
    const size_t px0 = static_cast<size_t>(pixel_of(static_cast<Index>(key0), m, hcols));
    const size_t px1 = static_cast<size_t>(pixel_of(static_cast<Index>(key0 + count - 1), m, hcols)) + 1;
    k_.heat.use();
    bind_buffers(0, {&p_buf_, &floats_buf_, &hsum_buf_, &hmax_buf_, &frame_buf_});
    k_.heat.set({{"rows", rows}, {"stride", z_.tile}, {"key0", key0}, {"keys", count}, {"m", z_.m}, {"hcols", z_.hcols},
                 {"px0", px0}, {"px_count", px1 - px0}, {"c", z_.c}});
    dispatch(groups(px1 - px0, 64), static_cast<GLuint>(rows));
  }
  check_gl("streaming attention over a tile of keys");
}

// The chunk's rows against every key they may see, in one dispatch of stream_block.comp (the
// heatmap's pixels included).
void StreamRun::row_blocks(size_t row0, size_t rows) {
  const Mask& mask = p_.options.mask;
  const ComputeProgram& kernel = z_.blocks->program;
  kernel.use();
  q_tex_.bind(0);
  whole_.k_tex.bind(1);
  whole_.v_tex.bind(2);
  bind_buffers(0, {&o_buf_, &sums_buf_, &floats_buf_, &flags_buf_, &mask_buf_, &hsum_buf_, &hmax_buf_, &frame_buf_});
  kernel.set({{"rows", rows}, {"row0", row0}, {"m", z_.m},
              {"mask_kind", static_cast<GLuint>(mask.kind)},
              {"mask_param", static_cast<GLuint>(std::max(0, mask.param))},
              {"c", z_.c}, {"skip", static_cast<GLuint>(z_.all_scores == AllScores::Gram)},
              {"hcols", z_.heat ? z_.hcols : size_t{0}}});
  dispatch(groups(rows, z_.blocks->rows));
  check_gl("streaming attention over blocks of rows");
}

// The chunk's finished rows into the heatmap's pixel sums and maxima.
void StreamRun::add_rows_to_heatmap(size_t row0, size_t rows) {
  k_.heat_rows.use();
  bind_buffers(0, {&sums_buf_, &floats_buf_, &hsum_buf_, &hmax_buf_, &frame_buf_, &map_sum_, &map_max_});
  k_.heat_rows.set({{"rows", static_cast<GLuint>(rows)},
                    {"row0", static_cast<GLuint>(row0)},
                    {"n", static_cast<GLuint>(z_.n)},
                    {"hrows", static_cast<GLuint>(z_.hrows)},
                    {"hcols", static_cast<GLuint>(z_.hcols)},
                    {"c", z_.c}});
  dispatch(groups(z_.hcols, 64));
  check_gl("adding streamed rows to the heatmap");
}

// The chunk's output rows, diagnostics and score moments read back. False when some row has a score
// the float kernels cannot finish exactly as the CPU does (a ±∞ score: the CPU's exact path and its
// statistics over infinities; visible keys but nothing summed; a NaN score, which the CPU
// recomputes in double): the CPU path then does the whole problem.
bool StreamRun::read_chunk(size_t row0, size_t rows, Result& r) {
  flags_buf_.download(flags_.data(), rows * sizeof(GLuint));
  sums_buf_.download(sums_.data(), rows * kSumsPerRow * sizeof(double));
  for (size_t i = 0; i < rows; ++i) {
    const double* s = sums_.data() + i * kSumsPerRow;
    if (flags_[i] != 0 || (!(s[layout::SUM_Z] > 0) && s[layout::VIS_COUNT] > 0)) return false;
  }
  o_buf_.download(o_staging_.data(), rows * z_.dv4 * sizeof(float));
  floats_buf_.download(floats_.data(), rows * kFloatsPerRow * sizeof(float));
  for (size_t i = 0; i < rows; ++i) {
    const double* s = sums_.data() + i * kSumsPerRow;
    const float* f = floats_.data() + i * kFloatsPerRow;
    const Index gi = static_cast<Index>(row0 + i);
    const float inv = s[layout::SUM_Z] > 0 ? static_cast<float>(1.0 / s[layout::SUM_Z]) : 0.0f;
    float* out = r.output.row(gi).data();
    for (size_t col = 0; col < z_.dv; ++col) out[col] = o_staging_[i * z_.dv4 + col] * inv;
    RowDiagnostics d = diagnostics_from_sums(OnlineSums{s[layout::SUM_Z], s[layout::SUM_REST], s[layout::SUM_T],
                                                        s[layout::SUM_U2], s[layout::SUM_U3], s[layout::SUM_TIES]});
    d.padding = p_.options.mask.is_padding_row(gi);
    r.rows[row0 + i] = d;
    ScoreMoments a, v;
    a.count = static_cast<long long>(s[layout::ALL_COUNT]);
    a.mean = s[layout::ALL_MEAN];
    a.m2 = s[layout::ALL_M2];
    a.min = f[layout::ALL_MIN];
    a.max = f[layout::ALL_MAX];
    v.count = static_cast<long long>(s[layout::VIS_COUNT]);
    v.mean = s[layout::VIS_MEAN];
    v.m2 = s[layout::VIS_M2];
    v.min = f[layout::VIS_MIN];
    v.max = f[layout::VIS_MAX];
    all_.merge(a);
    visible_.merge(v);
  }
  return true;
}

// The statistics (`all`: every score's moments), and the heatmap's pixel sums read back as means.
void StreamRun::finish(Result& r, const ScoreMoments& all) {
  r.stats = streamed_stats(all, visible_, z_.divisor);
  if (!z_.heat) return;
  const Index hr = static_cast<Index>(z_.hrows), hc = static_cast<Index>(z_.hcols);
  r.heatmap.mean.resize(hr, hc);
  r.heatmap.max.resize(hr, hc);
  map_sum_.download(r.heatmap.mean.data(), z_.hrows * z_.hcols * sizeof(float));
  map_max_.download(r.heatmap.max.data(), z_.hrows * z_.hcols * sizeof(float));
  divide_by_pixel_cells(r.heatmap.mean, r.n, r.m);
}

}  // namespace

const BlockKernels::Kernel* BlockKernels::get(size_t dk4, size_t dv4) {
  if (dk4 > kMaxHead || dv4 > kMaxHead) return nullptr;
  const std::pair<size_t, size_t> head{dk4, dv4};
  if (const auto it = built_.find(head); it != built_.end()) return &it->second;
  // The keys per tile asked for, else the most of 32, 16 and 8 whose K and V tiles and the rows'
  // scores fit the shared memory.
  const size_t rows = shape_.rows;
  size_t keys = shape_.keys > 0 ? shape_.keys : 32;
  const auto bytes = [&](size_t n) { return (n * (dk4 + dv4) + rows * (n + 1)) * sizeof(float); };
  while (keys >= 8 && bytes(keys) > shared_bytes_) keys /= 2;
  if (keys < 8) return nullptr;
  const std::string defines = "#define DK4 " + std::to_string(dk4 / 4) + "u\n#define DV4 " + std::to_string(dv4 / 4) +
                              "u\n#define BLOCK_ROWS " + std::to_string(rows) + "u\n#define BLOCK_KEYS " +
                              std::to_string(keys) + "u\n";
  Kernel kernel{ComputeProgram("stream_block.comp", defines), rows, keys};
  kernel.program.use();
  kernel.program.set("q_tex", GLint{0});
  kernel.program.set("k_tex", GLint{1});
  kernel.program.set("v_tex", GLint{2});
  return &built_.emplace(head, std::move(kernel)).first->second;
}

const BlockKernels::Kernel* block_kernel(const StreamingPrograms& k, const Problem& p, const StreamingOptions& options,
                                         size_t limit) {
  const Sizes z = plan_sizes(p, options, k, limit);
  return cpu_reason(p, z) == nullptr ? z.blocks : nullptr;
}

Result compute_streaming_gpu(const StreamingPrograms& k, const Problem& p, const StreamingOptions& options,
                             size_t limit) {
  const Magnitudes read = validate_problem(p);
  Sizes z = plan_sizes(p, options, k, limit);
  z.all_scores = all_scores_source(p, z.c, ScoreOverflowGuard(p, read).active());
  // What the GPU's kernels cannot run goes to the CPU's streaming path, which says so.
  const auto on_cpu = [&](const char* why) {
    Result cpu = compute_streaming_cpu(p, options);
    cpu.computed_by.why = why;
    return cpu;
  };
  if (const char* why = cpu_reason(p, z)) return on_cpu(why);
  Result r = result_header(p);
  r.dense = false;
  r.computed_by = {BackendKind::Gpu, BackendKind::Gpu, BackendKind::Gpu, {}};
  r.output.setZero(r.n, r.d_v);
  r.rows.assign(z.n, RowDiagnostics{});
  if (!StreamRun(k, p, options, z).run(r)) {
    return on_cpu("some scores overflow float32, and the CPU's exact path finishes those rows");
  }
  return r;
}

}  // namespace attnlab::gpu
