// The streaming CPU path (FlashAttention-style tiles with an online softmax: never the n × m
// matrices). The output-only paths of `attnlab bench` (cpu/output_only.cpp) share its context and
// tiled pass (cpu/streaming_internal.hpp).
//
// [SECTION] Tile sizes from the caches
// [SECTION] Online softmax and its diagnostics
// [SECTION] Query tiles
// [SECTION] Exact rows (other normalizers, overflowed rows)
// [SECTION] The tiled pass over all rows
// [SECTION] compute_streaming_cpu, downsample_weights
#include "engine/cpu/streaming.hpp"

#include "engine/cpu/cpu_internal.hpp"
#include "engine/cpu/blas.hpp"
#include "engine/cpu/online_row.hpp"
#include "engine/cpu/streaming_internal.hpp"
#include "engine/cpu/softmax_kernels.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <limits>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace attnlab {

using detail::AlignedFloats;
using detail::Context;
using detail::KeyLayout;
using detail::ThreadAcc;
using detail::tile_products;
using detail::visible_span;

// [SECTION] Tile sizes from the caches

namespace {

using Index = Eigen::Index;
constexpr float kInfF = std::numeric_limits<float>::infinity();

// Bytes of one level of this CPU's data caches (per core: level 1 data, level 2 unified), as
// sysconf reports them, else as Linux's sysfs lists them for cpu0; 0 when neither says.
long cache_bytes(int level) {
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
  const long v = sysconf(level == 1 ? _SC_LEVEL1_DCACHE_SIZE : _SC_LEVEL2_CACHE_SIZE);
  if (v > 0) return v;
#endif
  for (int index = 0; index < 8; ++index) {
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::ifstream lf(dir + "level"), tf(dir + "type"), sf(dir + "size");
    int l = 0;
    std::string type, size;
    if (!(lf >> l) || !(tf >> type) || !(sf >> size)) continue;
    if (l != level || type == "Instruction") continue;
    const long number = std::atol(size.c_str());
    const char unit = size.empty() ? ' ' : size.back();
    return unit == 'K' ? number << 10 : unit == 'M' ? number << 20 : number;
  }
  return 0;
}

}  // namespace

StreamingTiles streaming_tile_sizes(Index d_k, Index d_v) {
  StreamingTiles t;
  // Read once: glibc answers with cpuid, which a virtual machine's hypervisor traps.
  static const long l1d_bytes = cache_bytes(1), l2_bytes = cache_bytes(2);
  t.l1d_bytes = l1d_bytes;
  t.l2_bytes = l2_bytes;
  // Unknown sizes: what most x86 and ARM cores of the last years have at least.
  const long l2 = t.l2_bytes > 0 ? t.l2_bytes : 1L << 20;
  // A tile's scores and weights (2 · rows · cols floats) take a quarter of L2, so that they stay
  // there between the scores product, the softmax and the output product, beside the key and value
  // tiles and the output rows; tiles 4× wider than tall (long runs for the exp and the row max,
  // fewer rescales of a row's output when its max grows), rows a power of two so that the query
  // tiles split the rows evenly between threads. A 2 MiB L2: 128 × 512 (512 KiB), the size tuned
  // by hand before; 1 MiB: 128 × 256; 256 KiB: 64 × 128.
  const double cells = static_cast<double>(l2) / (4.0 * 2 * 4);
  Index cols = 64;
  while (cols < 1024 && static_cast<double>(cols * 2) * static_cast<double>(cols * 2) / 4 <= cells) cols *= 2;
  Index rows = 16;
  while (rows < 512 && static_cast<double>(rows * 2) * static_cast<double>(cols) <= cells) rows *= 2;
  // From d = 1024 (the larger of d_k and d_v) twice the rows: OpenBLAS packs a tile's d × cols keys
  // again for every query tile, and twice the rows halve that (docs/PERFORMANCE.md, session 3).
  if (std::max(d_k, d_v) >= 1024) rows = std::min<Index>(rows * 2, 512);
  t.rows = rows;
  t.cols = cols;
  if (const char* e = std::getenv("ATTNLAB_TILE_ROWS")) t.rows = std::clamp<Index>(std::atol(e), 1, 4096);
  if (const char* e = std::getenv("ATTNLAB_TILE_COLS")) t.cols = std::clamp<Index>(std::atol(e), 1, 65536);
  return t;
}

const kernels::TileProducts& detail::tile_products() {
  static const kernels::TileProducts none{nullptr, nullptr};
  static const kernels::TileProducts& chosen = std::getenv("ATTNLAB_TILE_BLAS") ? none : *kernels::table().tiles;
  return chosen;
}

namespace {

// [SECTION] Online softmax and its diagnostics
//
// A row's running max, sums and their rescaling are OnlineRow's (cpu/online_row.hpp, with the
// derivation), which the online-softmax lesson runs too.

bool row_has_visible_key(const Mask& mask, Index i, Index m) {
  if (mask.kind != MaskKind::Custom) {
    Index first = 0, last = m;
    mask.visible_range(i, m, first, last);
    return first < last;
  }
  for (Index j = 0; j < m; ++j) {
    if (!mask.blocked(i, j)) return true;
  }
  return false;
}

struct Workspace {
  AlignedFloats S, P, O;  // kRowTile × kColTile, kRowTile × kColTile, kRowTile × d_v
  std::vector<OnlineRow> st;
  std::vector<Index> first, last;
  // Per row of the tile and heatmap column: sum and max of p over the pixel's cells, in the frame
  // of the row's running max (rescaled with the other sums when it moves, which for most rows
  // happens a handful of times).
  std::vector<float> hsum, hmax;
  std::vector<Index> hlo, hhi;  // per row: the pixel columns touched so far, [hlo, hhi)
};

// Adds p over keys [a, b) of one row (p indexed from key `base`) into the row's pixel sums and
// maxima. Wide pixels reduce a run at a time; narrow ones (under 16 keys, only when m < 16 ×
// heatmap columns, so small problems) go cell by cell through the key → pixel table.
void heat_add(const Context& cx, const float* p, Index base, Index a, Index b, float* hsum, float* hmax) {
  if (cx.m >= 16 * cx.hcols) {
    const kernels::Table& k = kernels::table();
    Index j = a;
    while (j < b) {
      const Index px = pixel_of(j, cx.m, cx.hcols);
      const Index end = std::min(b, pixel_first(px + 1, cx.m, cx.hcols));
      float sum = 0, mx = 0;
      k.sum_max(p + (j - base), end - j, sum, mx);
      hsum[px] += sum;
      hmax[px] = std::max(hmax[px], mx);
      j = end;
    }
    return;
  }
  const std::int32_t* pix = cx.pixel_col.data();
  for (Index j = a; j < b; ++j) {
    const float v = p[j - base];
    const std::int32_t px = pix[j];
    hsum[px] += v;
    hmax[px] = std::max(hmax[px], v);
  }
}

// [SECTION] Query tiles

void query_tile(const Context& cx, Index r0, Index r1, Workspace& ws, ThreadAcc& acc, Matrix& output,
                std::vector<RowDiagnostics>* rows) {
  const Problem& p = *cx.p;
  const Mask& mask = p.options.mask;
  const kernels::Table& k = kernels::table();
  const Index nr = r1 - r0, dk = cx.dk, dv = cx.dv, kColTile = cx.col_tile;
  const bool custom = mask.kind == MaskKind::Custom;
  const bool heat = cx.full && cx.hcols > 0;
  const kernels::TileProducts& tiles = tile_products();

  Index lo = cx.m, hi = 0;  // union of the rows' visible key ranges
  for (Index r = 0; r < nr; ++r) {
    Index f = 0, l = 0;
    visible_span(mask, r0 + r, cx.m, f, l);
    ws.first[static_cast<size_t>(r)] = f;
    ws.last[static_cast<size_t>(r)] = l;
    if (f < l) {
      lo = std::min(lo, f);
      hi = std::max(hi, l);
    }
    ws.st[static_cast<size_t>(r)] = OnlineRow{};
  }
  std::fill(ws.O.begin(), ws.O.begin() + nr * dv, 0.0f);
  if (heat) {
    std::fill(ws.hsum.begin(), ws.hsum.begin() + nr * cx.hcols, 0.0f);
    std::fill(ws.hmax.begin(), ws.hmax.begin() + nr * cx.hcols, 0.0f);
    std::fill(ws.hlo.begin(), ws.hlo.begin() + nr, cx.hcols);
    std::fill(ws.hhi.begin(), ws.hhi.begin() + nr, Index{0});
  }

  for (Index c0 = 0; c0 < cx.m; c0 += kColTile) {
    const Index c1 = std::min(cx.m, c0 + kColTile);
    const bool touches = lo < c1 && hi > c0;
    Index g0 = c0, g1 = c1;
    if (!cx.full) {
      // Output only: blocked tiles are neither multiplied nor exponentiated.
      if (!touches) continue;
      g0 = std::max(c0, lo);
      // From a strip boundary for the tile kernels (c0 is one): the keys before lo are computed
      // and then left out like any blocked cell.
      if (cx.key_strips) g0 -= (g0 - c0) % kernels::kKeyStrip;
      g1 = std::min(c1, hi);
    }
    const Index w = g1 - g0;
    if (cx.key_strips) {
      tiles.scores(p.Q.row(r0).data(), dk, cx.key_strips.data() + g0 * dk, nr, w, dk, ws.S.data(), kColTile);
    } else {
      blas::gemm_nn(nr, w, dk, p.Q.row(r0).data(), dk, cx.Kt.data() + g0, cx.m, 0.0f, ws.S.data(), kColTile);
    }
    if (cx.guard.active()) {
      for (Index r = 0; r < nr; ++r) {
        if (cx.guard.apply(r0 + r, g0, g1, ws.S.data() + r * kColTile) > 0) {
          ws.st[static_cast<size_t>(r)].recomputed = true;
        }
      }
    }
    // Every score counts in the scores' statistics, blocked or not: a blocked tile is multiplied
    // for them (compute mode only) and stops here, never exponentiated.
    const auto all_moments = [&](Index r, Index j0, Index j1) {
      kernels::ScoreMoments row_m;
      k.moments(ws.S.data() + r * kColTile + (j0 - g0), j1 - j0, row_m);
      acc.all.merge(row_m);
    };
    if (cx.full && (!touches || custom)) {
      for (Index r = 0; r < nr; ++r) all_moments(r, g0, g1);
    }
    if (!touches) continue;
    for (Index r = 0; r < nr; ++r) {
      const Index i = r0 + r;
      OnlineRow& st = ws.st[static_cast<size_t>(r)];
      float* s = ws.S.data() + r * kColTile;
      float* prow = ws.P.data() + r * kColTile;
      Index a = std::max(ws.first[static_cast<size_t>(r)], g0), b = std::min(ws.last[static_cast<size_t>(r)], g1);
      if (a >= b) a = b = g0;  // nothing visible in this tile: the whole row of P is zero
      if (cx.full && custom) {
        detail::visible_moments(mask, i, cx.m, s, g0, g1, acc.visible);
      } else if (cx.full) {
        // Interval masks: blocked runs [g0, a) and [b, g1), the visible run [a, b) counted in
        // both statistics, each cell read once.
        all_moments(r, g0, a);
        all_moments(r, b, g1);
        kernels::ScoreMoments vis;
        k.moments(s + (a - g0), b - a, vis);
        acc.visible.merge(vis);
        acc.all.merge(vis);
      }
      if (custom) {
        for (Index j = g0; j < g1; ++j) {
          if (mask.blocked(i, j)) s[j - g0] = -kInfF;
        }
      }
      float mx = a < b ? k.row_max(s + (a - g0), b - a) : -kInfF;
      if (mx == kInfF) st.exact = true;
      if (st.exact) mx = -kInfF;  // contributes nothing here; the exact path recomputes the row
      const float M = std::max(st.max, mx);
      if (M == -kInfF) {
        std::fill(prow, prow + w, 0.0f);
        continue;
      }
      const kernels::ExpSums sums = k.exp_row(s + (a - g0), prow + (a - g0), b - a, M, cx.c, cx.full);
      std::fill(prow, prow + (a - g0), 0.0f);
      std::fill(prow + (b - g0), prow + w, 0.0f);
      if (M != st.max) {
        // α = 1 on the row's first visible tile: nothing summed yet, O and the pixel sums are zero.
        const double alpha = st.raise_max(M, cx.c);
        if (alpha != 1.0) {
          k.scale(ws.O.data() + r * dv, dv, static_cast<float>(alpha));
          if (heat && ws.hlo[static_cast<size_t>(r)] < ws.hhi[static_cast<size_t>(r)]) {
            const Index h0 = r * cx.hcols + ws.hlo[static_cast<size_t>(r)];
            const Index len = ws.hhi[static_cast<size_t>(r)] - ws.hlo[static_cast<size_t>(r)];
            k.scale(ws.hsum.data() + h0, len, static_cast<float>(alpha));
            k.scale(ws.hmax.data() + h0, len, static_cast<float>(alpha));
          }
        }
      }
      st.add(sums);
      if (heat && a < b) {
        const size_t h = static_cast<size_t>(r * cx.hcols);
        heat_add(cx, prow, g0, a, b, &ws.hsum[h], &ws.hmax[h]);
        Index& hlo = ws.hlo[static_cast<size_t>(r)];
        Index& hhi = ws.hhi[static_cast<size_t>(r)];
        hlo = std::min(hlo, pixel_of(a, cx.m, cx.hcols));
        hhi = std::max(hhi, pixel_of(b - 1, cx.m, cx.hcols) + 1);
      }
    }
    if (cx.values) {
      tiles.output(ws.P.data(), kColTile, cx.values.data() + g0 * dv, dv, nr, w, dv, ws.O.data(), dv);
    } else {
      blas::gemm_nn(nr, dv, w, ws.P.data(), kColTile, p.V.row(g0).data(), dv, 1.0f, ws.O.data(), dv);
    }
  }

  for (Index r = 0; r < nr; ++r) {
    const Index i = r0 + r;
    const OnlineRow& st = ws.st[static_cast<size_t>(r)];
    // Nothing summed although keys are visible: every visible score overflowed float32 to −∞.
    // That row is not masked; the exact path decides it as the dense path does.
    if (st.exact || (!(st.z > 0) && row_has_visible_key(p.options.mask, i, cx.m))) {
      acc.exact_rows.push_back(i);
      continue;
    }
    float* out = output.row(i).data();
    const float* o = ws.O.data() + r * dv;
    const float inv = st.z > 0 ? static_cast<float>(1.0 / st.z) : 0.0f;
    for (Index j = 0; j < dv; ++j) out[j] = o[j] * inv;
    if (!cx.full) continue;
    RowDiagnostics d = diagnostics_from_sums(st);
    d.padding = p.options.mask.is_padding_row(i);
    d.scores_recomputed = st.recomputed;
    (*rows)[static_cast<size_t>(i)] = d;
    if (heat && st.z > 0) {
      const Index py = pixel_of(i, cx.n, cx.hrows);
      float* hs = &acc.heat_sum[static_cast<size_t>(py * cx.hcols)];
      float* hm = &acc.heat_max[static_cast<size_t>(py * cx.hcols)];
      const size_t h = static_cast<size_t>(r * cx.hcols);
      const float inv_z = static_cast<float>(1.0 / st.z);
      for (Index px = ws.hlo[static_cast<size_t>(r)]; px < ws.hhi[static_cast<size_t>(r)]; ++px) {
        hs[px] += ws.hsum[h + static_cast<size_t>(px)] * inv_z;
        hm[px] = std::max(hm[px], ws.hmax[h + static_cast<size_t>(px)] * inv_z);
      }
    }
  }
}

// [SECTION] Exact rows (other normalizers, overflowed rows)
//
// A block of query rows at a time with a full row of scores each (O(rows·m) memory): double
// logits and the engine's reference normalize_row/row_diagnostics, as in the dense path.
constexpr Index kExactRows = 16;

void exact_rows(const Context& cx, const Index* list, Index count, bool with_stats, ThreadAcc& acc,
                Matrix& output, std::vector<RowDiagnostics>& rows) {
  const Problem& p = *cx.p;
  const Mask& mask = p.options.mask;
  const kernels::Table& k = kernels::table();
  std::vector<float> q(static_cast<size_t>(count * cx.dk)), S(static_cast<size_t>(count * cx.m)),
      W(static_cast<size_t>(count * cx.m)), O(static_cast<size_t>(count * cx.dv));
  std::vector<double> x(static_cast<size_t>(cx.m));
  for (Index r = 0; r < count; ++r) {
    std::copy_n(p.Q.row(list[r]).data(), cx.dk, q.begin() + r * cx.dk);
  }
  blas::gemm_nt(count, cx.m, cx.dk, q.data(), cx.dk, p.K.data(), cx.dk, 0.0f, S.data(), cx.m);
  for (Index r = 0; r < count; ++r) {
    const Index i = list[r];
    float* s = S.data() + r * cx.m;
    float* w = W.data() + r * cx.m;
    const bool recomputed = cx.guard.apply(i, 0, cx.m, s) > 0;
    if (with_stats) {
      kernels::ScoreMoments row_m;
      k.moments(s, cx.m, row_m);
      acc.all.merge(row_m);
      detail::visible_moments(mask, i, cx.m, s, 0, cx.m, acc.visible);
    }
    detail::normalizer_logits(p.options.normalizer, mask, i, cx.m, s, cx.divisor, x.data());
    const bool any = normalize_row(p.options.normalizer, x.data(), w, cx.m);
    RowDiagnostics d = row_diagnostics(p.options.normalizer, w, cx.m);
    d.fully_masked = !any;
    d.padding = mask.is_padding_row(i);
    d.scores_recomputed = recomputed;
    rows[static_cast<size_t>(i)] = d;
    if (cx.hcols > 0) {
      const Index py = pixel_of(i, cx.n, cx.hrows);
      for (Index px = 0; px < cx.hcols; ++px) {
        const Index a = pixel_first(px, cx.m, cx.hcols), b = pixel_first(px + 1, cx.m, cx.hcols);
        float sum = 0, mx = 0;
        k.sum_max(w + a, b - a, sum, mx);
        acc.heat_sum[static_cast<size_t>(py * cx.hcols + px)] += sum;
        float& hm = acc.heat_max[static_cast<size_t>(py * cx.hcols + px)];
        hm = std::max(hm, mx);
      }
    }
  }
  blas::gemm_nn(count, cx.dv, cx.m, W.data(), cx.m, p.V.data(), cx.dv, 0.0f, O.data(), cx.dv);
  for (Index r = 0; r < count; ++r) std::copy_n(O.begin() + r * cx.dv, cx.dv, output.row(list[r]).data());
}

// [SECTION] The tiled pass over all rows

// Reports progress from the calling thread (thread 0 of the team), at most every ~1/200 of the work.
class Progress {
public:
  Progress(const std::function<void(double)>& f, Index total) : f_(f), total_(total) {}
  void done(Index units) {
    const Index now = done_.fetch_add(units) + units;
    if (!f_ || omp_get_thread_num() != 0) return;
    const double frac = static_cast<double>(now) / static_cast<double>(total_);
    if (frac - last_ >= 0.005) {
      last_ = frac;
      f_(frac);
    }
  }
  void finish() {
    if (f_) f_(1.0);
  }

private:
  const std::function<void(double)>& f_;
  Index total_;
  std::atomic<Index> done_{0};
  double last_ = 0;
};

// Not copyable in practice (Kt is large): returned by value through copy elision only.
}  // namespace

detail::Context detail::make_context(const Problem& p, bool full, const StreamingOptions* so, KeyLayout keys) {
  Context cx;
  cx.p = &p;
  cx.n = p.Q.rows();
  cx.m = p.K.rows();
  cx.dk = p.Q.cols();
  cx.dv = p.V.cols();
  cx.divisor = effective_temperature(cx.dk, p.options);
  cx.c = detail::fast_inverse_divisor(cx.divisor);
  cx.guard = detail::ScoreOverflowGuard(p);
  cx.full = full;
  const StreamingTiles tiles = streaming_tile_sizes(cx.dk, cx.dv);
  // The CPU's own tile products while a strip of keys (32 · d_k floats, 8 KiB at d_k = 64) fits in
  // half of L1 (d_k ≤ 192 with 48 KiB): every query row of a tile meets the strip there. Beyond,
  // each 8-row panel reads the strip from L2 and the query tile (rows × d_k) from L3, and
  // OpenBLAS's blocking does better (docs/PERFORMANCE.md, "Relative to the machine's peak").
  const long l1d = tiles.l1d_bytes > 0 ? tiles.l1d_bytes : 32L << 10;
  const bool own = tile_products().scores && kernels::kKeyStrip * cx.dk * 4 <= l1d / 2;
  if (keys == KeyLayout::Tiled && own) {
    const Index strips = (cx.m + kernels::kKeyStrip - 1) / kernels::kKeyStrip;
    cx.key_strips.resize(static_cast<size_t>(strips * kernels::kKeyStrip * cx.dk));
    kernels::pack_key_strips(p.K.data(), cx.m, cx.dk, cx.key_strips.data());
    if (tile_products().output && cx.dv % 16 == 0) {
      cx.values.resize(static_cast<size_t>(cx.m * cx.dv));
      std::copy_n(p.V.data(), cx.m * cx.dv, cx.values.data());
    }
  } else if (keys != KeyLayout::None) {
    detail::transpose_into(p.K, cx.Kt);
  }
  cx.row_tile = tiles.rows;
  cx.col_tile = tiles.cols;
  if (cx.key_strips) {
    // Key tiles start on strip boundaries (and so on cache lines).
    cx.col_tile = (cx.col_tile + kernels::kKeyStrip - 1) / kernels::kKeyStrip * kernels::kKeyStrip;
  }
  if (full && so) {
    cx.hrows = std::clamp<Index>(so->heatmap_rows, 0, cx.n);
    cx.hcols = std::clamp<Index>(so->heatmap_cols, 0, cx.m);
    if (cx.hrows == 0 || cx.hcols == 0) cx.hrows = cx.hcols = 0;
    if (cx.hcols > 0 && cx.m < 16 * cx.hcols) {
      cx.pixel_col.resize(static_cast<size_t>(cx.m));
      for (Index j = 0; j < cx.m; ++j) {
        cx.pixel_col[static_cast<size_t>(j)] = static_cast<std::int32_t>(pixel_of(j, cx.m, cx.hcols));
      }
    }
  }
  return cx;
}

namespace {

// Runs the tiled pass (softmax) or the exact rows (other normalizers) over all query rows in
// parallel, then the rows that overflowed. Returns the merged accumulators.
}  // namespace

detail::ThreadAcc detail::run_rows(const Context& cx, Matrix& output, std::vector<RowDiagnostics>& rows,
                   const std::function<void(double)>& progress_f, const std::atomic<bool>* cancel) {
  // Exceptions cannot leave an OpenMP region: a cancelled run skips its remaining tiles instead.
  const auto stopped = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };
  const int threads = omp_get_max_threads();
  std::vector<ThreadAcc> accs(static_cast<size_t>(threads));
  const size_t pixels = static_cast<size_t>(cx.hrows * cx.hcols);
  for (ThreadAcc& a : accs) {
    a.heat_sum.assign(pixels, 0.0f);
    a.heat_max.assign(pixels, 0.0f);
  }
  const bool tiled = cx.p->options.normalizer == Normalizer::Softmax && cx.c != 0;
  const Index kRowTile = cx.row_tile, kColTile = cx.col_tile;
  Progress progress(progress_f, cx.n);
  if (tiled) {
    std::vector<Workspace> wss(static_cast<size_t>(threads));
    for (Workspace& ws : wss) {
      ws.S.resize(static_cast<size_t>(kRowTile * kColTile));
      ws.P.resize(static_cast<size_t>(kRowTile * kColTile));
      ws.O.resize(static_cast<size_t>(kRowTile * cx.dv));
      ws.st.resize(static_cast<size_t>(kRowTile));
      ws.first.resize(static_cast<size_t>(kRowTile));
      ws.last.resize(static_cast<size_t>(kRowTile));
      if (cx.full && cx.hcols > 0) {
        ws.hsum.resize(static_cast<size_t>(kRowTile * cx.hcols));
        ws.hmax.resize(static_cast<size_t>(kRowTile * cx.hcols));
        ws.hlo.resize(static_cast<size_t>(kRowTile));
        ws.hhi.resize(static_cast<size_t>(kRowTile));
      }
    }
    const Index tiles = (cx.n + kRowTile - 1) / kRowTile;
#pragma omp parallel num_threads(threads)
    {
      const size_t t = static_cast<size_t>(omp_get_thread_num());
      // Last query tiles first: under a causal mask they see the most keys, so the dynamic
      // schedule ends on short tiles and the threads finish together.
#pragma omp for schedule(dynamic, 1)
      for (Index b = 0; b < tiles; ++b) {
        if (stopped()) continue;
        const Index tile = tiles - 1 - b;
        const Index r0 = tile * kRowTile, r1 = std::min(cx.n, r0 + kRowTile);
        query_tile(cx, r0, r1, wss[t], accs[t], output, &rows);
        progress.done(r1 - r0);
      }
    }
  }
  // Rows for the exact path: all of them without the tiled pass, else those that overflowed.
  std::vector<Index> list;
  if (tiled) {
    for (ThreadAcc& a : accs) list.insert(list.end(), a.exact_rows.begin(), a.exact_rows.end());
  } else {
    list.resize(static_cast<size_t>(cx.n));
    for (Index i = 0; i < cx.n; ++i) list[static_cast<size_t>(i)] = i;
  }
  const Index blocks = (static_cast<Index>(list.size()) + kExactRows - 1) / kExactRows;
#pragma omp parallel num_threads(threads)
  {
    const size_t t = static_cast<size_t>(omp_get_thread_num());
#pragma omp for schedule(dynamic, 1)
    for (Index b = 0; b < blocks; ++b) {
      if (stopped()) continue;
      const Index r0 = b * kExactRows, count = std::min<Index>(kExactRows, static_cast<Index>(list.size()) - r0);
      exact_rows(cx, list.data() + r0, count, !tiled, accs[t], output, rows);
      if (!tiled) progress.done(count);
    }
  }
  progress.finish();
  ThreadAcc total = std::move(accs[0]);
  for (size_t t = 1; t < accs.size(); ++t) {
    total.all.merge(accs[t].all);
    total.visible.merge(accs[t].visible);
    for (size_t q = 0; q < pixels; ++q) {
      total.heat_sum[q] += accs[t].heat_sum[q];
      total.heat_max[q] = std::max(total.heat_max[q], accs[t].heat_max[q]);
    }
  }
  return total;
}

namespace {

// Pixel means from pixel sums: divide by the number of cells each pixel covers.
void heat_means(Matrix& mean, Index n, Index m) {
  const Index hr = mean.rows(), hc = mean.cols();
  for (Index y = 0; y < hr; ++y) {
    const double rows = static_cast<double>(pixel_first(y + 1, n, hr) - pixel_first(y, n, hr));
    for (Index x = 0; x < hc; ++x) {
      const double cols = static_cast<double>(pixel_first(x + 1, m, hc) - pixel_first(x, m, hc));
      mean(y, x) = static_cast<float>(mean(y, x) / (rows * cols));
    }
  }
}

}  // namespace

double detail::ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}


// [SECTION] compute_streaming_cpu, downsample_weights

RowDiagnostics diagnostics_from_online_sums(double z, double rest, double ties, double t, double u2,
                                                    double u3) {
  OnlineRow st;
  st.z = z;
  st.rest = rest;
  st.ties = ties;
  st.t = t;
  st.u2 = u2;
  st.u3 = u3;
  return diagnostics_from_sums(st);
}

Result compute_streaming_cpu(const Problem& p, const StreamingOptions& options) {
  validate_problem(p);
  Result r = result_header(p);
  r.dense = false;
  const Context cx = make_context(p, true, &options, KeyLayout::Tiled);
  r.output.setZero(r.n, r.d_v);
  r.rows.assign(static_cast<size_t>(r.n), RowDiagnostics{});
  ThreadAcc acc = run_rows(cx, r.output, r.rows, options.progress, options.cancel);
  if (options.cancel && options.cancel->load()) throw Cancelled();
  r.stats = detail::stats_from_moments(acc.all, acc.visible, cx.divisor);
  if (cx.hcols > 0) {
    r.heatmap.mean = Eigen::Map<Matrix>(acc.heat_sum.data(), cx.hrows, cx.hcols);
    r.heatmap.max = Eigen::Map<Matrix>(acc.heat_max.data(), cx.hrows, cx.hcols);
    heat_means(r.heatmap.mean, r.n, r.m);
  }
  return r;
}

Heatmap downsample_weights(const Matrix& weights, Index max_rows, Index max_cols) {
  const Index n = weights.rows(), m = weights.cols();
  const Index hr = std::clamp<Index>(max_rows, 0, n), hc = std::clamp<Index>(max_cols, 0, m);
  Heatmap h;
  if (hr == 0 || hc == 0) return h;
  h.mean.setZero(hr, hc);
  h.max.setZero(hr, hc);
  for (Index i = 0; i < n; ++i) {
    const Index y = pixel_of(i, n, hr);
    for (Index j = 0; j < m; ++j) {
      const Index x = pixel_of(j, m, hc);
      h.mean(y, x) += weights(i, j);
      h.max(y, x) = std::max(h.max(y, x), weights(i, j));
    }
  }
  heat_means(h.mean, n, m);
  return h;
}

}  // namespace attnlab
