// The streaming path on the GPU: for each chunk of query rows, each tile of keys runs scores.comp
// (S tile), stream_update.comp (online softmax: P = exp((s − M')·c), rescaled sums, moments),
// stream_output.comp (O ← α·O + P·V) and, for the heatmap, stream_heat.comp; after the last tile
// stream_heat_rows.comp adds the chunk's finished rows to the heatmap. The sums and the formulas
// that turn them into diagnostics are every streaming path's (attention/online_softmax.hpp), so both agree.
#include "engine/gpu/gpu_streaming.hpp"

#include "engine/attention/online_softmax.hpp"
#include "engine/attention/stats.hpp"
#include "engine/cpu/streaming.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
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
constexpr size_t kMaxChunkRows = 1024;
constexpr size_t kMaxTileKeys = 1024;

}  // namespace

Result compute_streaming_gpu(const StreamingPrograms& k, const Problem& p, const StreamingOptions& options,
                             size_t limit) {
  validate_problem(p);
  const Options& o = p.options;
  const size_t n = static_cast<size_t>(p.Q.rows()), m = static_cast<size_t>(p.K.rows());
  const size_t dk = static_cast<size_t>(p.Q.cols()), dv = static_cast<size_t>(p.V.cols());
  const double divisor = effective_temperature(p.Q.cols(), o);
  const float c = fast_inverse_divisor(divisor);
  const size_t dk4 = round4(dk), dv4 = round4(dv), widest = std::max(dk4, dv4) * sizeof(float);
  const size_t hrows = static_cast<size_t>(std::clamp<Index>(options.heatmap_rows, 0, p.Q.rows()));
  const size_t hcols = static_cast<size_t>(std::clamp<Index>(options.heatmap_cols, 0, p.K.rows()));
  const bool heat = hrows > 0 && hcols > 0;

  // Key tiles (a multiple of 64 keys) and query chunks, each buffer under the limit.
  const size_t tile = std::min({kMaxTileKeys, (m + 63) / 64 * 64, limit / widest / 64 * 64});
  size_t chunk = std::min({kMaxChunkRows, n, limit / widest, tile > 0 ? limit / (tile * sizeof(float)) : 0});
  if (o.mask.kind == MaskKind::Custom) chunk = std::min(chunk, limit / m);
  const double u32 = static_cast<double>(std::numeric_limits<std::uint32_t>::max());
  const bool indices_fit = static_cast<double>(m) * static_cast<double>(std::max<size_t>(hcols, 1)) < u32 &&
                           static_cast<double>(n) * static_cast<double>(std::max<size_t>(hrows, 1)) < u32;
  // What the GPU's kernels cannot run goes to the CPU's streaming path, which says so.
  const auto on_cpu = [&](const char* why) {
    Result cpu = compute_streaming_cpu(p, options);
    cpu.computed_by.why = why;
    return cpu;
  };
  if (o.normalizer != Normalizer::Softmax) return on_cpu("the GPU streams softmax only; other normalizers stream on the CPU");
  if (c == 0) return on_cpu("1/(s·T) is outside float32's normal range, so the CPU streams in double");
  if (tile == 0 || chunk == 0 || !indices_fit) return on_cpu("the problem does not fit the GPU's buffers, so the CPU streams it");

  Result r = result_header(p);
  r.dense = false;
  r.computed_by = {BackendKind::Gpu, BackendKind::Gpu, BackendKind::Gpu, {}};
  r.output.setZero(r.n, r.d_v);
  r.rows.assign(n, RowDiagnostics{});

  // K tiles as given (keys × dk4) and V tiles transposed (dv4 × keys, zero-padded), uploaded once.
  std::vector<Buffer> k_tiles, vt_tiles;
  std::vector<BufferTexture> k_textures, vt_textures;
  std::vector<size_t> tile_keys;
  for (size_t first = 0; first < m; first += tile) {
    const size_t count = std::min(tile, m - first), keys4 = round4(count);
    std::vector<float> kt(count * dk4, 0.0f), vt(dv4 * keys4, 0.0f);
    for (size_t j = 0; j < count; ++j) {
      std::memcpy(kt.data() + j * dk4, p.K.row(static_cast<Index>(first + j)).data(), dk * sizeof(float));
      const float* v = p.V.row(static_cast<Index>(first + j)).data();
      for (size_t col = 0; col < dv; ++col) vt[col * keys4 + j] = v[col];
    }
    k_tiles.emplace_back(kt.size() * sizeof(float), kt.data());
    vt_tiles.emplace_back(vt.size() * sizeof(float), vt.data());
    k_textures.emplace_back(k_tiles.back());
    vt_textures.emplace_back(vt_tiles.back());
    tile_keys.push_back(count);
  }

  Buffer q_buf(chunk * dk4 * sizeof(float)), s_buf(chunk * tile * sizeof(float)), p_buf(chunk * tile * sizeof(float));
  Buffer o_buf(chunk * dv4 * sizeof(float));
  Buffer sums_buf(chunk * kSumsPerRow * sizeof(double)), floats_buf(chunk * kFloatsPerRow * sizeof(float));
  Buffer flags_buf(chunk * sizeof(GLuint));
  const bool custom = o.mask.kind == MaskKind::Custom;
  Buffer mask_buf(custom ? round4(chunk * m) : 4);
  const size_t hcells = heat ? chunk * hcols : 1;
  Buffer hsum_buf(hcells * sizeof(float)), hmax_buf(hcells * sizeof(float)), frame_buf(hcells * sizeof(float));
  Buffer map_sum(heat ? hrows * hcols * sizeof(float) : 4), map_max(heat ? hrows * hcols * sizeof(float) : 4);
  map_sum.clear();
  map_max.clear();
  const BufferTexture q_tex(q_buf), p_tex(p_buf), s_tex(s_buf, GL_R32F);

  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> floats_init(chunk * kFloatsPerRow, 0.0f);
  for (size_t i = 0; i < chunk; ++i) {
    float* f = floats_init.data() + i * kFloatsPerRow;
    f[layout::ROW_MAX] = -inf;
    f[layout::ROW_ALPHA] = 1.0f;
    f[layout::ALL_MIN] = inf;
    f[layout::ALL_MAX] = -inf;
    f[layout::VIS_MIN] = inf;
    f[layout::VIS_MAX] = -inf;
  }
  const std::vector<float> frame_init(heat ? hcells : 0, -inf);
  std::vector<float> q_staging, o_staging(chunk * dv4), floats(chunk * kFloatsPerRow);
  std::vector<double> sums(chunk * kSumsPerRow);
  std::vector<GLuint> flags(chunk);
  ScoreMoments all, visible;

  for (size_t row0 = 0; row0 < n; row0 += chunk) {
    const size_t rows = std::min(chunk, n - row0);
    q_staging.assign(rows * dk4, 0.0f);
    for (size_t i = 0; i < rows; ++i) {
      std::memcpy(q_staging.data() + i * dk4, p.Q.row(static_cast<Index>(row0 + i)).data(), dk * sizeof(float));
    }
    q_buf.upload(q_staging.data(), q_staging.size() * sizeof(float));
    sums_buf.clear();
    flags_buf.clear();
    o_buf.clear();
    floats_buf.upload(floats_init.data(), rows * kFloatsPerRow * sizeof(float));
    if (heat) {
      hsum_buf.clear();
      hmax_buf.clear();
      frame_buf.upload(frame_init.data(), frame_init.size() * sizeof(float));
    }
    if (custom) {
      std::vector<std::uint8_t> bytes(round4(rows * m), 0);
      std::memcpy(bytes.data(), o.mask.blocked.data() + row0 * m, rows * m);
      mask_buf.upload(bytes.data(), bytes.size());
    }

    for (size_t t = 0; t < tile_keys.size(); ++t) {
      if (options.cancel && options.cancel->load()) throw Cancelled();
      const size_t key0 = t * tile, count = tile_keys[t];
      k.scores.use();
      q_tex.bind(0);
      k_textures[t].bind(1);
      s_buf.bind(2);
      k.scores.set("rows", static_cast<GLuint>(rows));
      k.scores.set("keys", static_cast<GLuint>(count));
      k.scores.set("dk_vec4", static_cast<GLuint>(dk4 / 4));
      k.scores.set("s_stride", static_cast<GLuint>(tile));
      k.scores.set("s_col", GLuint{0});
      dispatch(groups(count, 64), groups(rows, 64));

      k.update.use();
      s_tex.bind(0);
      p_buf.bind(1);
      sums_buf.bind(2);
      floats_buf.bind(3);
      flags_buf.bind(4);
      mask_buf.bind(5);
      k.update.set("keys", static_cast<GLuint>(count));
      k.update.set("stride", static_cast<GLuint>(tile));
      k.update.set("key0", static_cast<GLuint>(key0));
      k.update.set("row0", static_cast<GLuint>(row0));
      k.update.set("m", static_cast<GLuint>(m));
      k.update.set("mask_kind", static_cast<GLuint>(o.mask.kind));
      k.update.set("mask_param", static_cast<GLuint>(std::max(0, o.mask.param)));
      k.update.set("c", c);
      k.update.set("rows", static_cast<GLuint>(rows));
      dispatch(groups(rows, 64));

      k.output.use();
      p_tex.bind(0);
      vt_textures[t].bind(1);
      o_buf.bind(2);
      floats_buf.bind(3);
      k.output.set("rows", static_cast<GLuint>(rows));
      k.output.set("keys_vec4", static_cast<GLuint>(round4(count) / 4));
      k.output.set("dv_vec4", static_cast<GLuint>(dv4 / 4));
      k.output.set("p_stride", static_cast<GLuint>(tile / 4));
      dispatch(groups(dv4, 64), groups(rows, 64));

      if (heat) {
        const size_t px0 = static_cast<size_t>(pixel_of(static_cast<Index>(key0), r.m, static_cast<Index>(hcols)));
        const size_t px1 =
            static_cast<size_t>(pixel_of(static_cast<Index>(key0 + count - 1), r.m, static_cast<Index>(hcols))) + 1;
        k.heat.use();
        p_buf.bind(0);
        floats_buf.bind(1);
        hsum_buf.bind(2);
        hmax_buf.bind(3);
        frame_buf.bind(4);
        k.heat.set("rows", static_cast<GLuint>(rows));
        k.heat.set("stride", static_cast<GLuint>(tile));
        k.heat.set("key0", static_cast<GLuint>(key0));
        k.heat.set("keys", static_cast<GLuint>(count));
        k.heat.set("m", static_cast<GLuint>(m));
        k.heat.set("hcols", static_cast<GLuint>(hcols));
        k.heat.set("px0", static_cast<GLuint>(px0));
        k.heat.set("px_count", static_cast<GLuint>(px1 - px0));
        k.heat.set("c", c);
        dispatch(groups(px1 - px0, 64), static_cast<GLuint>(rows));
      }
      check_gl("streaming attention over a tile of keys");
    }
    if (heat) {
      k.heat_rows.use();
      sums_buf.bind(0);
      floats_buf.bind(1);
      hsum_buf.bind(2);
      hmax_buf.bind(3);
      frame_buf.bind(4);
      map_sum.bind(5);
      map_max.bind(6);
      k.heat_rows.set("rows", static_cast<GLuint>(rows));
      k.heat_rows.set("row0", static_cast<GLuint>(row0));
      k.heat_rows.set("n", static_cast<GLuint>(n));
      k.heat_rows.set("hrows", static_cast<GLuint>(hrows));
      k.heat_rows.set("hcols", static_cast<GLuint>(hcols));
      k.heat_rows.set("c", c);
      dispatch(groups(hcols, 64));
      check_gl("adding streamed rows to the heatmap");
    }

    // Rows the float kernels cannot finish exactly as the CPU does (a ±∞ score: the CPU's exact
    // path and its statistics over infinities; visible keys but nothing summed; a NaN score, which
    // the CPU recomputes in double): the CPU path does the whole problem.
    flags_buf.download(flags.data(), rows * sizeof(GLuint));
    sums_buf.download(sums.data(), rows * kSumsPerRow * sizeof(double));
    for (size_t i = 0; i < rows; ++i) {
      const double* s = sums.data() + i * kSumsPerRow;
      if (flags[i] != 0 || (!(s[layout::SUM_Z] > 0) && s[layout::VIS_COUNT] > 0)) {
        return on_cpu("some scores overflow float32, and the CPU's exact path finishes those rows");
      }
    }
    o_buf.download(o_staging.data(), rows * dv4 * sizeof(float));
    floats_buf.download(floats.data(), rows * kFloatsPerRow * sizeof(float));
    for (size_t i = 0; i < rows; ++i) {
      const double* s = sums.data() + i * kSumsPerRow;
      const float* f = floats.data() + i * kFloatsPerRow;
      const Index gi = static_cast<Index>(row0 + i);
      const float inv = s[layout::SUM_Z] > 0 ? static_cast<float>(1.0 / s[layout::SUM_Z]) : 0.0f;
      float* out = r.output.row(gi).data();
      for (size_t col = 0; col < dv; ++col) out[col] = o_staging[i * dv4 + col] * inv;
      RowDiagnostics d = diagnostics_from_sums(OnlineSums{s[layout::SUM_Z], s[layout::SUM_REST], s[layout::SUM_T],
                                                          s[layout::SUM_U2], s[layout::SUM_U3], s[layout::SUM_TIES]});
      d.padding = o.mask.is_padding_row(gi);
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
      all.merge(a);
      visible.merge(v);
    }
    if (options.progress) options.progress(static_cast<double>(row0 + rows) / static_cast<double>(n));
  }

  r.stats = stats_from_moments(all, visible, divisor);
  if (heat) {
    r.heatmap.mean.resize(static_cast<Index>(hrows), static_cast<Index>(hcols));
    r.heatmap.max.resize(static_cast<Index>(hrows), static_cast<Index>(hcols));
    map_sum.download(r.heatmap.mean.data(), hrows * hcols * sizeof(float));
    map_max.download(r.heatmap.max.data(), hrows * hcols * sizeof(float));
    // Pixel means: divide each pixel's sum by the number of cells it covers.
    const Index hr = static_cast<Index>(hrows), hc = static_cast<Index>(hcols);
    for (Index y = 0; y < hr; ++y) {
      const double cells_y = static_cast<double>(pixel_first(y + 1, r.n, hr) - pixel_first(y, r.n, hr));
      for (Index x = 0; x < hc; ++x) {
        const double cells_x = static_cast<double>(pixel_first(x + 1, r.m, hc) - pixel_first(x, r.m, hc));
        r.heatmap.mean(y, x) = static_cast<float>(r.heatmap.mean(y, x) / (cells_y * cells_x));
      }
    }
  }
  return r;
}

}  // namespace attnlab::gpu
