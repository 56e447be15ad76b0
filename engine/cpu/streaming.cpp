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
using detail::visible_span;

// [SECTION] Tile sizes from the caches

namespace {

using detail::Index;

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
  // by hand before; 1 MiB: 128 × 256; 512 KiB: 128 × 256 (the floor below); 256 KiB: 128 × 128.
  const double cells = static_cast<double>(l2) / (4.0 * 2 * 4);
  Index cols = 64;
  while (cols < 1024 && static_cast<double>(cols * 2) * static_cast<double>(cols * 2) / 4 <= cells) cols *= 2;
  Index rows = 16;
  while (rows < 512 && static_cast<double>(rows * 2) * static_cast<double>(cols) <= cells) rows *= 2;
  // From d = 1024 (the larger of d_k and d_v) twice the rows: OpenBLAS packs a tile's d × cols keys
  // again for every query tile, and twice the rows halve that (docs/PERFORMANCE.md, "Streaming on
  // the CPU").
  if (std::max(d_k, d_v) >= 1024) rows = std::min<Index>(rows * 2, 512);
  // At least 128 rows, for the same reason, where L2 is small: on host E (512 KiB, so 64 × 256 by
  // the quarter) 128 × 256 took 0.82–0.96 of the time at n = 100 000 causal, d = 64.
  rows = std::max<Index>(rows, 128);
  t.rows = rows;
  t.cols = cols;
  if (const char* e = std::getenv("ATTNLAB_TILE_ROWS")) t.rows = std::clamp<Index>(std::atol(e), 1, 4096);
  if (const char* e = std::getenv("ATTNLAB_TILE_COLS")) t.cols = std::clamp<Index>(std::atol(e), 1, 65536);
  return t;
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

// Adds p over keys [a, b) (a < b) of one row (p indexed from key `base`) into the row's pixel sums
// and maxima, and widens [px_begin, px_end) to the pixels touched. Wide pixels reduce a run at a
// time, their ends from the context's table (a division per pixel had cost more than the sums);
// narrow ones (under 16 keys, only when m < 16 × heatmap columns, so small problems) go cell by
// cell through the key → pixel table.
void heat_add(const Context& cx, const float* p, Index base, Index a, Index b, float* hsum, float* hmax,
              Index& px_begin, Index& px_end) {
  if (cx.m >= 16 * cx.hcols) {
    const kernels::Table& k = kernels::table();
    Index px = pixel_of(a, cx.m, cx.hcols);
    px_begin = std::min(px_begin, px);
    for (Index j = a; j < b; ++px) {
      const Index end = std::min(b, cx.pixel_ends[static_cast<size_t>(px)]);
      float sum = 0, mx = 0;
      k.sum_max(p + (j - base), end - j, sum, mx);
      hsum[px] += sum;
      hmax[px] = std::max(hmax[px], mx);
      j = end;
    }
    px_end = std::max(px_end, px);
    return;
  }
  const std::int32_t* pix = cx.pixel_col.data();
  for (Index j = a; j < b; ++j) {
    const float v = p[j - base];
    const std::int32_t px = pix[j];
    hsum[px] += v;
    hmax[px] = std::max(hmax[px], v);
  }
  px_begin = std::min<Index>(px_begin, pix[a]);
  px_end = std::max<Index>(px_end, pix[b - 1] + 1);
}

// [SECTION] Query tiles

// One tile of query rows [row_begin, row_end) against every key tile: the scores product, then
// each row's online-softmax step (update_row), then the partial output product; finish_rows
// divides each row by its sum ℓ and writes its diagnostics.

// The keys one step computes, [begin, end), inside its key tile [tile_begin, tile_end): the whole
// tile in compute mode, only its visible part (from a key-strip boundary) in bench mode.
struct KeyTile {
  Index tile_begin = 0, tile_end = 0;
  Index begin = 0, end = 0;
  Index width() const { return end - begin; }
};

// The scores' statistics over `count` scores (every score counts, blocked or not).
void add_moments(const kernels::Table& kern, const float* scores, Index count, kernels::ScoreMoments& into) {
  kernels::ScoreMoments part;
  kern.moments(scores, count, part);
  into.merge(part);
}

// Compute mode's statistics of row `query` over one key tile in a pass of their own: the visible
// cells [visible_begin, visible_end) (each cell of a custom mask tested), and where every score's
// statistics come from the tiles (AllScores::Tiles), the blocked runs beside them too; each cell read
// once.
void add_tile_moments(const Context& cx, const KeyTile& tile, Index query, const float* scores, Index visible_begin,
                      Index visible_end, ThreadAcc& acc) {
  const Mask& mask = cx.p->options.mask;
  if (mask.kind == MaskKind::Custom) {
    detail::visible_moments(mask, query, cx.m, scores, tile.begin, tile.end, acc.visible);
    return;
  }
  const kernels::Table& kern = kernels::table();
  kernels::ScoreMoments seen;
  kern.moments(scores + (visible_begin - tile.begin), visible_end - visible_begin, seen);
  acc.visible.merge(seen);
  if (cx.all_scores == AllScores::Tiles) {
    add_moments(kern, scores, visible_begin - tile.begin, acc.all);
    add_moments(kern, scores + (visible_end - tile.begin), tile.end - visible_end, acc.all);
    acc.all.merge(seen);
  }
}

// Resets the tile's rows and finds each one's visible keys; returns the union of those ranges.
std::pair<Index, Index> start_rows(const Context& cx, Index row_begin, Index rows, Workspace& work) {
  const Mask& mask = cx.p->options.mask;
  Index union_begin = cx.m, union_end = 0;
  for (Index r = 0; r < rows; ++r) {
    Index first = 0, last = 0;
    visible_span(mask, row_begin + r, cx.m, first, last);
    work.first[static_cast<size_t>(r)] = first;
    work.last[static_cast<size_t>(r)] = last;
    if (first < last) {
      union_begin = std::min(union_begin, first);
      union_end = std::max(union_end, last);
    }
    work.st[static_cast<size_t>(r)] = OnlineRow{};
  }
  std::fill(work.O.begin(), work.O.begin() + rows * cx.dv, 0.0f);
  if (cx.full && cx.hcols > 0) {
    std::fill(work.hsum.begin(), work.hsum.begin() + rows * cx.hcols, 0.0f);
    std::fill(work.hmax.begin(), work.hmax.begin() + rows * cx.hcols, 0.0f);
    std::fill(work.hlo.begin(), work.hlo.begin() + rows, cx.hcols);
    std::fill(work.hhi.begin(), work.hhi.begin() + rows, Index{0});
  }
  return {union_begin, union_end};
}

// Row r (query `query`) over one key tile whose scores are in the workspace: its statistics
// (compute mode), the mask, the running max and the rescale it brings, p = exp((s − M)·c) into
// the row of P, and the row's sums and heatmap pixels.
void update_row(const Context& cx, const KeyTile& tile, Index r, Index query, Workspace& work, ThreadAcc& acc) {
  const kernels::Table& kern = kernels::table();
  const Mask& mask = cx.p->options.mask;
  const bool custom = mask.kind == MaskKind::Custom;
  const bool heat = cx.full && cx.hcols > 0;
  const Index stride = cx.col_tile;
  OnlineRow& row = work.st[static_cast<size_t>(r)];
  float* scores = work.S.data() + r * stride;  // scores[j − tile.begin] is key j's
  float* p = work.P.data() + r * stride;
  Index visible_begin = std::max(work.first[static_cast<size_t>(r)], tile.begin);
  Index visible_end = std::min(work.last[static_cast<size_t>(r)], tile.end);
  if (visible_begin >= visible_end) visible_begin = visible_end = tile.begin;  // nothing visible here: p is zero
  const Index skip = visible_begin - tile.begin, visible = visible_end - visible_begin;

  // Compute mode's statistics: the visible run's moments in the exp pass below where that is all
  // it needs (an interval mask, no blocked cells counted), else in a pass of their own.
  const bool fused_moments = cx.full && !custom && cx.all_scores != AllScores::Tiles;
  if (cx.full && !fused_moments) add_tile_moments(cx, tile, query, scores, visible_begin, visible_end, acc);
  if (custom) {
    for (Index j = tile.begin; j < tile.end; ++j) {
      if (mask.blocked(query, j)) scores[j - tile.begin] = -kInfF;
    }
  }

  float tile_max = visible > 0 ? kern.row_max(scores + skip, visible) : -kInfF;
  if (tile_max == kInfF) row.exact = true;
  if (row.exact) tile_max = -kInfF;  // contributes nothing here; the exact path recomputes the row
  const float new_max = std::max(row.max, tile_max);
  if (new_max == -kInfF) {
    std::fill(p, p + tile.width(), 0.0f);
    return;
  }
  const kernels::ExpSums sums =
      fused_moments ? kern.exp_row_moments(scores + skip, p + skip, visible, new_max, cx.c, tile_max, acc.visible)
                    : kern.exp_row(scores + skip, p + skip, visible, new_max, cx.c, cx.full);
  std::fill(p, p + skip, 0.0f);
  std::fill(p + (visible_end - tile.begin), p + tile.width(), 0.0f);
  if (new_max != row.max) {
    // α = 1 on the row's first visible tile: nothing summed yet, O and the pixel sums are zero.
    const double alpha = row.raise_max(new_max, cx.c);
    if (alpha != 1.0) {
      kern.scale(work.O.data() + r * cx.dv, cx.dv, static_cast<float>(alpha));
      if (heat && work.hlo[static_cast<size_t>(r)] < work.hhi[static_cast<size_t>(r)]) {
        const Index px_begin = work.hlo[static_cast<size_t>(r)], pixels = work.hhi[static_cast<size_t>(r)] - px_begin;
        kern.scale(work.hsum.data() + r * cx.hcols + px_begin, pixels, static_cast<float>(alpha));
        kern.scale(work.hmax.data() + r * cx.hcols + px_begin, pixels, static_cast<float>(alpha));
      }
    }
  }
  row.add(sums);
  if (heat && visible > 0) {
    const size_t h = static_cast<size_t>(r * cx.hcols);
    heat_add(cx, p, tile.begin, visible_begin, visible_end, &work.hsum[h], &work.hmax[h], work.hlo[static_cast<size_t>(r)],
             work.hhi[static_cast<size_t>(r)]);
  }
}

// Each row's output O ÷ ℓ, its diagnostics and its heatmap pixels; rows that must be recomputed
// exactly are listed in acc.exact_rows instead.
void finish_rows(const Context& cx, Index row_begin, Index rows, const Workspace& work, ThreadAcc& acc, Matrix& output,
                 std::vector<RowDiagnostics>* diagnostics) {
  const Problem& p = *cx.p;
  for (Index r = 0; r < rows; ++r) {
    const Index query = row_begin + r;
    const OnlineRow& row = work.st[static_cast<size_t>(r)];
    // Nothing summed although keys are visible: every visible score overflowed float32 to −∞.
    // That row is not masked; the exact path decides it as the dense path does.
    if (row.exact || (!(row.z > 0) && row_has_visible_key(p.options.mask, query, cx.m))) {
      acc.exact_rows.push_back(query);
      continue;
    }
    float* out = output.row(query).data();
    const float* o = work.O.data() + r * cx.dv;
    const float inv = row.z > 0 ? static_cast<float>(1.0 / row.z) : 0.0f;
    for (Index j = 0; j < cx.dv; ++j) out[j] = o[j] * inv;
    if (!cx.full) continue;
    RowDiagnostics d = diagnostics_from_sums(row);
    d.padding = p.options.mask.is_padding_row(query);
    d.scores_recomputed = row.recomputed;
    (*diagnostics)[static_cast<size_t>(query)] = d;
    if (cx.hcols > 0 && row.z > 0) {
      const Index py = pixel_of(query, cx.n, cx.hrows);
      float* heat_sum = &acc.heat_sum[static_cast<size_t>(py * cx.hcols)];
      float* heat_max = &acc.heat_max[static_cast<size_t>(py * cx.hcols)];
      const size_t h = static_cast<size_t>(r * cx.hcols);
      const float inv_z = static_cast<float>(1.0 / row.z);
      for (Index px = work.hlo[static_cast<size_t>(r)]; px < work.hhi[static_cast<size_t>(r)]; ++px) {
        heat_sum[px] += work.hsum[h + static_cast<size_t>(px)] * inv_z;
        heat_max[px] = std::max(heat_max[px], work.hmax[h + static_cast<size_t>(px)] * inv_z);
      }
    }
  }
}

void query_tile(const Context& cx, Index row_begin, Index row_end, Workspace& work, ThreadAcc& acc, Matrix& output,
                std::vector<RowDiagnostics>* diagnostics) {
  const Problem& p = *cx.p;
  const kernels::Table& kern = kernels::table();
  const kernels::TileProducts& products = kernels::tile_products();
  const Index rows = row_end - row_begin, stride = cx.col_tile;
  const bool custom = p.options.mask.kind == MaskKind::Custom;
  const auto [union_begin, union_end] = start_rows(cx, row_begin, rows, work);

  for (Index tile_begin = 0; tile_begin < cx.m; tile_begin += stride) {
    KeyTile tile{tile_begin, std::min(cx.m, tile_begin + stride), tile_begin, 0};
    tile.end = tile.tile_end;
    const bool touches = union_begin < tile.tile_end && union_end > tile.tile_begin;
    const bool blocked_cells = cx.full && cx.all_scores == AllScores::Tiles;
    if (!blocked_cells) {
      // Blocked tiles are neither multiplied nor exponentiated.
      if (!touches) continue;
      tile.begin = std::max(tile.tile_begin, union_begin);
      // From a strip boundary for the tile kernels (tile_begin is one): the keys before the
      // visible ones are computed and then left out like any blocked cell.
      if (cx.key_strips) tile.begin -= (tile.begin - tile.tile_begin) % kernels::kKeyStrip;
      tile.end = std::min(tile.tile_end, union_end);
    }
    const Index width = tile.width();
    if (cx.key_strips) {
      products.scores(p.Q.row(row_begin).data(), cx.dk, cx.key_strips.data() + tile.begin * cx.dk, rows, width, cx.dk,
                      work.S.data(), stride);
    } else {
      blas::gemm_nn(rows, width, cx.dk, p.Q.row(row_begin).data(), cx.dk, cx.Kt.data() + tile.begin, cx.m, 0.0f,
                    work.S.data(), stride);
    }
    if (cx.guard.active()) {
      for (Index r = 0; r < rows; ++r) {
        if (cx.guard.apply(row_begin + r, tile.begin, tile.end, work.S.data() + r * stride) > 0) {
          work.st[static_cast<size_t>(r)].recomputed = true;
        }
      }
    }
    // Where the scores' statistics come from the tiles, every score counts, blocked or not: a
    // blocked tile is multiplied for them and stops here, never exponentiated.
    if (blocked_cells && (!touches || custom)) {
      for (Index r = 0; r < rows; ++r) add_moments(kern, work.S.data() + r * stride, width, acc.all);
    }
    if (!touches) continue;
    for (Index r = 0; r < rows; ++r) update_row(cx, tile, r, row_begin + r, work, acc);
    if (cx.values) {
      products.output(work.P.data(), stride, cx.values.data() + tile.begin * cx.dv, cx.dv, rows, width, cx.dv,
                      work.O.data(), cx.dv);
    } else {
      blas::gemm_nn(rows, cx.dv, width, work.P.data(), stride, p.V.row(tile.begin).data(), cx.dv, 1.0f, work.O.data(),
                    cx.dv);
    }
  }
  finish_rows(cx, row_begin, rows, work, acc, output, diagnostics);
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

}  // namespace

detail::Context detail::make_context(const Problem& p, const ScoreOverflowGuard& guard, bool full,
                                     const StreamingOptions* so, KeyLayout keys) {
  Context cx;
  cx.p = &p;
  cx.n = p.Q.rows();
  cx.m = p.K.rows();
  cx.dk = p.Q.cols();
  cx.dv = p.V.cols();
  cx.divisor = effective_temperature(cx.dk, p.options);
  cx.c = fast_inverse_divisor(cx.divisor);
  cx.guard = guard;
  cx.full = full;
  if (full) cx.all_scores = all_scores_source(p, cx.c, guard.active());
  const StreamingTiles tiles = streaming_tile_sizes(cx.dk, cx.dv);
  // The CPU's own tile products while a strip of keys (32 · d_k floats, 8 KiB at d_k = 64) fits in
  // half of L1 (d_k ≤ 192 with 48 KiB): every query row of a tile meets the strip there. Beyond,
  // each 8-row panel reads the strip from L2 and the query tile (rows × d_k) from L3, and
  // OpenBLAS's blocking does better (docs/PERFORMANCE.md, "Streaming on the CPU").
  const long l1d = tiles.l1d_bytes > 0 ? tiles.l1d_bytes : 32L << 10;
  const bool own = kernels::tile_products().scores && kernels::kKeyStrip * cx.dk * 4 <= l1d / 2;
  if (keys == KeyLayout::Tiled && own) {
    const Index strips = (cx.m + kernels::kKeyStrip - 1) / kernels::kKeyStrip;
    cx.key_strips.resize(static_cast<size_t>(strips * kernels::kKeyStrip * cx.dk));
    kernels::pack_key_strips(p.K.data(), cx.m, cx.dk, cx.dk, cx.key_strips.data());
    if (kernels::tile_products().output && cx.dv % 16 == 0) {
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
    } else if (cx.hcols > 0) {
      cx.pixel_ends.resize(static_cast<size_t>(cx.hcols));
      for (Index px = 0; px < cx.hcols; ++px) cx.pixel_ends[static_cast<size_t>(px)] = pixel_first(px + 1, cx.m, cx.hcols);
    }
  }
  return cx;
}

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

double detail::ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// [SECTION] compute_streaming_cpu, downsample_weights

Result compute_streaming_cpu(const Problem& p, const StreamingOptions& options) {
  const Magnitudes read = validate_problem(p);
  Result r = result_header(p);
  r.dense = false;
  const Context cx = make_context(p, ScoreOverflowGuard(p, read), true, &options, KeyLayout::Tiled);
  r.output.setZero(r.n, r.d_v);
  r.rows.assign(static_cast<size_t>(r.n), RowDiagnostics{});
  ThreadAcc acc = run_rows(cx, r.output, r.rows, options.progress, options.cancel);
  if (options.cancel && options.cancel->load()) throw Cancelled();
  const ScoreMoments all = cx.all_scores == AllScores::Gram      ? all_score_moments(p.Q, p.K)
                          : cx.all_scores == AllScores::Visible ? acc.visible
                                                                : acc.all;
  r.stats = streamed_stats(all, acc.visible, cx.divisor);
  if (cx.hcols > 0) {
    r.heatmap.mean = Eigen::Map<Matrix>(acc.heat_sum.data(), cx.hrows, cx.hcols);
    r.heatmap.max = Eigen::Map<Matrix>(acc.heat_max.data(), cx.hrows, cx.hcols);
    divide_by_pixel_cells(r.heatmap.mean, r.n, r.m);
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
  divide_by_pixel_cells(h.mean, n, m);
  return h;
}

}  // namespace attnlab
