// The output-only softmax attention behind `attnlab bench` (cpu/output_only.hpp): dense strips of
// query rows whose scores stay in cache, the wide path for large d, and the streaming tiled pass.
//
// [SECTION] Dense strips
// [SECTION] attention_output_cpu
#include "engine/cpu/output_only.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/cpu/streaming_internal.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

namespace attnlab {

using detail::Context;
using detail::KeyLayout;
using detail::ms_since;
using detail::ThreadAcc;
using detail::visible_span;

namespace {

using detail::Index;

// [SECTION] Dense strips

// Rows per sub-strip: under a causal mask a strip's keys form a staircase; each sub-strip
// multiplies only up to its own last visible key, so at most 32·n/2 blocked cells are computed.
constexpr Index kSubStrip = 32;
// The same for the wide path's products on all threads. Leaves of 64, 128 and 256 rows ran
// within 5% of each other at n = 1024 (smaller leaves skip more blocked cells but pack the
// operands more often); 64 was fastest at d = 4096 and computes under 64·n/2 blocked cells.
constexpr Index kWideLeaf = 64;
// Rows of the wide path's groups: where products add to shared rows (the output, but for a
// square causal one's triangular product), subtrees this small run as one thread's products,
// groups in parallel (run_wide_blocks; the scores queue every block on its own). 128 and 256 ran
// alike at (1024, 4096); 512 left one group with most of the work.
constexpr Index kWideGroup = 256;
// The keys a product takes for all the rows of a node start and end on multiples of this where
// that leaves any: under a causal mask row i sees key i too, so every ancestor's keys would be a
// power of two plus one (513, 257, 129) and every leaf's one less (63, 127). OpenBLAS runs such
// an odd edge as a tile of its own: one core, (1024, 4096) causal, 64 × 63 ran at 0.75 of 64 × 64's
// speed and 128 × 129 at 0.9 of 128 × 128's (docs/PERFORMANCE.md, "What the engine does").
constexpr Index kKeyAlign = 16;

struct DenseThreadTimes {
  double scores = 0, softmax = 0, output = 0;  // milliseconds in each stage
};

// Rows [r0, r1) × keys [c0, c1) of a strip: one product.
struct Block {
  Index r0, r1, c0, c1;
  Index group = -1;  // the wide path's row group (rows no other group touches), or −1
  Index cells() const { return (r1 - r0) * (c1 - c0); }
};

struct DenseStrip {
  std::vector<Block> blocks;   // the visible cells of the strip, covered by rectangles
  std::vector<float> S;        // rows × (H − L): scores, then weights in place
  std::vector<Index> f, e;     // per row: visible keys [f, e)
  std::vector<float> row;      // m: a full row for the exact fallback
  std::vector<double> x;       // m
  Index leaf = kSubStrip;      // rows of cover_rows' leaves
  Index group_rows = 0;        // subtrees of at most this many rows form a group (0: none)
  Index groups = 0;            // how many groups cover_rows made
};

// Covers the visible cells of strip rows [a, b) (ds.f/ds.e) with rectangles, given that keys
// [done0, done1) are already covered for all of them: the keys every row sees in one product for
// all the rows, then each half of the rows recursively, down to leaves of ds.leaf rows that take
// their whole span. A causal staircase becomes the quadtree of its lower-left quadrants: large
// products (each packs its operands once) and at most ds.leaf·n/2 blocked cells multiplied.
void cover_rows(DenseStrip& ds, Index a, Index b, Index done0, Index done1, Index group = -1) {
  if (group < 0 && b - a <= ds.group_rows) group = ds.groups++;
  Index lo = std::numeric_limits<Index>::max(), hi = 0, F = 0, E = std::numeric_limits<Index>::max();
  for (Index r = a; r < b; ++r) {
    const Index f = ds.f[static_cast<size_t>(r)], e = ds.e[static_cast<size_t>(r)];
    if (f >= e) continue;
    lo = std::min(lo, f);
    hi = std::max(hi, e);
    F = std::max(F, f);
    E = std::min(E, e);
  }
  if (lo >= hi) return;
  // Adds keys [c0, c1) minus the done ones (which, when not empty, lie inside [c0, c1)).
  const auto add = [&](Index c0, Index c1) {
    const auto push = [&](Index x0, Index x1) {
      if (x0 < x1) ds.blocks.push_back(Block{a, b, x0, x1, group});
    };
    if (done0 >= done1) {
      push(c0, c1);
    } else {
      push(c0, done0);
      push(done1, c1);
    }
  };
  const Index mid = a + (b - a) / 2;
  if (b - a <= ds.leaf) {
    add(lo, hi);  // a leaf takes its whole span
  } else if (F >= E) {  // nothing every row sees (and so nothing done): halve
    cover_rows(ds, a, mid, done0, done1, group);
    cover_rows(ds, mid, b, done0, done1, group);
  } else if (lo == F && hi == E) {
    add(F, E);  // every row sees exactly [F, E)
  } else {
    // The keys every row sees, trimmed to multiples of kKeyAlign (the halves take the rest) as long
    // as that still holds the done ones: the halves are handed one interval of done keys.
    const Index F2 = (F + kKeyAlign - 1) / kKeyAlign * kKeyAlign, E2 = E / kKeyAlign * kKeyAlign;
    if (F2 < E2 && (done0 >= done1 || (F2 <= done0 && done1 <= E2))) {
      F = F2;
      E = E2;
    }
    if ((E - F) - std::max<Index>(done1 - done0, 0) < ds.leaf) {
      // Few keys beyond the done ones: a product of its own would pack all these rows' queries
      // for a sliver of keys, so the halves take them into their own products instead.
      cover_rows(ds, a, mid, done0, done1, group);
      cover_rows(ds, mid, b, done0, done1, group);
    } else {
      add(F, E);
      cover_rows(ds, a, mid, F, E, group);
      cover_rows(ds, mid, b, F, E, group);
    }
  }
}

// Query row i of the dense paths: s[j] (key j, for j in [L, H)) holds its scores over its visible
// keys [f, e) and becomes its weights, zero outside [f, e). row and x are scratch.
void dense_softmax_row(const Context& cx, Index i, float* s, Index f, Index e, Index L, Index H,
                       std::vector<float>& row, std::vector<double>& x) {
  const Mask& mask = cx.p->options.mask;
  const kernels::Table& k = kernels::table();
  const Index m = cx.m;
  if (f >= e) {
    std::fill(s + L, s + H, 0.0f);
    return;
  }
  if (mask.kind == MaskKind::Custom) {
    for (Index j = f; j < e; ++j) {
      if (mask.blocked(i, j)) s[j] = -kInfF;
    }
  }
  const float mx = k.row_max(s + f, e - f);
  if (std::isfinite(mx)) {
    const kernels::ExpSums sums = k.exp_row(s + f, s + f, e - f, mx, cx.c, false);
    k.scale(s + f, e - f, static_cast<float>(1.0 / sums.z));
  } else {
    // Fully masked (custom) or overflowed (+inf): the reference row in double, on a full row
    // (keys outside [f, e) are blocked for this row).
    row.assign(static_cast<size_t>(m), -kInfF);
    x.resize(static_cast<size_t>(m));
    std::copy(s + f, s + e, row.begin() + f);
    detail::normalizer_logits(Normalizer::Softmax, mask, i, m, row.data(), cx.divisor, x.data());
    normalize_row(Normalizer::Softmax, x.data(), row.data(), m);
    std::copy(row.begin() + f, row.begin() + e, s + f);
  }
  std::fill(s + L, s + f, 0.0f);
  std::fill(s + e, s + H, 0.0f);
}

// Rows [r0, r1): each row's visible keys (ds.f, ds.e), the keys any of them sees [L, H) and the
// rectangles that cover the visible cells (ds.blocks). Returns false when every row is fully
// masked.
bool plan_strip(const Context& cx, Index r0, Index r1, DenseStrip& ds, Index& L, Index& H) {
  const Index R = r1 - r0, m = cx.m;
  ds.f.resize(static_cast<size_t>(R));
  ds.e.resize(static_cast<size_t>(R));
  L = m;
  H = 0;
  for (Index r = 0; r < R; ++r) {
    Index f = 0, e = 0;
    visible_span(cx.p->options.mask, r0 + r, m, f, e);
    if (f >= e) f = e = 0;
    ds.f[static_cast<size_t>(r)] = f;
    ds.e[static_cast<size_t>(r)] = e;
    if (f < e) {
      L = std::min(L, f);
      H = std::max(H, e);
    }
  }
  if (L >= H) return false;
  ds.blocks.clear();
  ds.groups = 0;
  cover_rows(ds, 0, R, m, m);  // nothing done yet (an empty interval)
  return true;
}

// One strip of query rows [r0, r1): scores over the keys its rows see (covered by rectangles,
// cover_rows), softmax, output: blocked tiles are neither multiplied nor exponentiated.
void dense_strip(const Context& cx, Index r0, Index r1, DenseStrip& ds, Matrix& output, DenseThreadTimes& tt) {
  const Problem& p = *cx.p;
  const Index R = r1 - r0, m = cx.m, dk = cx.dk, dv = cx.dv;
  auto t0 = std::chrono::steady_clock::now();
  Index L = 0, H = 0;
  if (!plan_strip(cx, r0, r1, ds, L, H)) {  // every row fully masked: zero weights, zero output
    output.middleRows(r0, R).setZero();
    return;
  }
  const Index ld = H - L;
  if (ds.S.size() < static_cast<size_t>(R * ld)) ds.S.resize(static_cast<size_t>(R * ld));
  float* S = ds.S.data();

  for (const Block& blk : ds.blocks) {
    blas::gemm_nn(blk.r1 - blk.r0, blk.c1 - blk.c0, dk, p.Q.row(r0 + blk.r0).data(), dk, cx.Kt.data() + blk.c0, m,
                  0.0f, S + blk.r0 * ld + (blk.c0 - L), ld);
  }
  auto t1 = std::chrono::steady_clock::now();
  tt.scores += std::chrono::duration<double, std::milli>(t1 - t0).count();

  for (Index r = 0; r < R; ++r) {
    dense_softmax_row(cx, r0 + r, S + r * ld - L, ds.f[static_cast<size_t>(r)], ds.e[static_cast<size_t>(r)], L, H,
                      ds.row, ds.x);
  }
  auto t2 = std::chrono::steady_clock::now();
  tt.softmax += std::chrono::duration<double, std::milli>(t2 - t1).count();

  float* O = output.row(r0).data();
  std::fill(O, O + R * dv, 0.0f);  // rows whose keys are all blocked stay zero
  for (const Block& blk : ds.blocks) {
    blas::gemm_nn(blk.r1 - blk.r0, dv, blk.c1 - blk.c0, S + blk.r0 * ld + (blk.c0 - L), ld, p.V.row(blk.c0).data(),
                  dv, 1.0f, O + blk.r0 * dv, dv);
  }
  tt.output += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t2).count();
}

// Whether the dense bench covers all query rows at once (dense_wide) rather than with per-thread
// strips: at large d the products dominate and their operands are large, and per-thread strips
// would each pack Kᵀ and V again. At d = 256 the strips were still faster under a causal mask
// (docs/PERFORMANCE.md, "The dense CPU path"). Only while the n × m weights fit in a modest buffer.
bool use_wide(const Problem& p) { return std::max(p.Q.cols(), p.V.cols()) >= 512 && wide_fits(p); }

// Thread t's share [j0, j1) of w columns split between `threads`: slices of whole 16-float vectors,
// so that no two threads write one cache line.
std::pair<Index, Index> column_slice(Index w, Index t, Index threads) {
  const Index per = (w + threads * 16 - 1) / (threads * 16) * 16;
  const Index j0 = std::min(w, t * per);
  return {j0, std::min(w, j0 + per)};
}

// Runs product(block, i0, i1, j0, j1) over every block of ds, where [i0, i1) is a range of the
// block's rows and [j0, j1) of the product's columns (0 to cols(block)): the large blocks (no
// group) with their rows or columns split between the threads, then the groups in parallel,
// each group's blocks whole in one thread (rows of different groups never meet). One pool of
// threads, OpenMP's, with single-threaded sgemm: OpenBLAS's own threads on the large blocks ran as
// fast, but their worker, spinning after each product, shared a core with OpenMP's in the group
// phase, and whole runs took 1.6× as long. Where the stage is one product and nothing else (no
// mask), OpenBLAS's threads do run it: they share the packed operands, where each OpenMP thread
// packs the whole of one of them.
// Small products split over two threads wait on each other and pack twice, so they run side by
// side instead.
// Where every block writes cells no other block writes (the scores: `disjoint`), the groups mean
// nothing: the large blocks' slices and every other block form one queue, largest first, with no
// barrier between them. A thread that a busy host stalls holds up nothing but its own item, where
// each large block's barrier made its partner wait, and the last items are leaves, so the threads
// finish together. An output's blocks add to rows that earlier blocks wrote, so there each large
// block ends at a barrier and each group runs whole in one thread.
template <class Cols, class Product>
void run_wide_blocks(const DenseStrip& ds, const Cols& cols, const Product& product, bool disjoint) {
  if (ds.groups == 0 && ds.blocks.size() == 1) {
    // One product, on OpenBLAS's threads (above; faster than OpenMP's column split in alternating
    // runs, docs/PERFORMANCE.md, "The dense CPU path"). OpenBLAS's worker spins a while after the
    // product, beside the softmax's OpenMP threads, which sleep while they wait
    // (OMP_WAIT_POLICY=passive).
    const Block& blk = ds.blocks.front();
    const blas::OpenBlasThreads pool(omp_get_max_threads());
    product(blk, blk.r0, blk.r1, 0, cols(blk));
    return;
  }
  // Splitting a product's rows makes every thread pack all of its right operand (inner × cols),
  // splitting its columns all of its left one (rows × inner): split the side that copies less.
  const auto split_rows = [&](const Block& blk) { return cols(blk) < blk.r1 - blk.r0; };
  // Thread t's slice of a large block, of `threads` slices.
  const auto slice = [&](const Block& blk, Index t, Index threads) {
    if (split_rows(blk)) {
      const Index h = blk.r1 - blk.r0, per = (h + threads - 1) / threads;
      const Index i0 = blk.r0 + std::min(h, t * per), i1 = blk.r0 + std::min(h, (t + 1) * per);
      if (i0 < i1) product(blk, i0, i1, 0, cols(blk));
    } else {
      const auto [j0, j1] = column_slice(cols(blk), t, threads);
      if (j0 < j1) product(blk, blk.r0, blk.r1, j0, j1);
    }
  };
  if (disjoint) {
    // Items: a large block's slice t of `threads`, or (t = −1) a group's block whole.
    struct Item {
      const Block* blk;
      Index t, cells;
    };
    const Index threads = omp_get_max_threads();
    std::vector<Item> items;
    for (const Block& blk : ds.blocks) {
      if (blk.group >= 0) {
        items.push_back({&blk, -1, blk.cells()});
      } else {
        for (Index t = 0; t < threads; ++t) items.push_back({&blk, t, blk.cells() / threads});
      }
    }
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.cells > b.cells; });
#pragma omp parallel for schedule(dynamic, 1)
    for (size_t k = 0; k < items.size(); ++k) {
      const Item& it = items[k];
      if (it.t >= 0) {
        slice(*it.blk, it.t, threads);
      } else {
        product(*it.blk, it.blk->r0, it.blk->r1, 0, cols(*it.blk));
      }
    }
    return;
  }
  // Each group's blocks (in cover order), largest group first so the threads end together.
  std::vector<std::vector<const Block*>> members(static_cast<size_t>(ds.groups));
  std::vector<Index> cells(static_cast<size_t>(ds.groups), 0);
  for (const Block& blk : ds.blocks) {
    if (blk.group < 0) continue;
    members[static_cast<size_t>(blk.group)].push_back(&blk);
    cells[static_cast<size_t>(blk.group)] += blk.cells();
  }
  std::vector<Index> order(static_cast<size_t>(ds.groups));
  for (Index g = 0; g < ds.groups; ++g) order[static_cast<size_t>(g)] = g;
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return cells[static_cast<size_t>(a)] > cells[static_cast<size_t>(b)]; });
  const auto run_group = [&](Index k) {
    for (const Block* blk : members[static_cast<size_t>(order[static_cast<size_t>(k)])]) {
      product(*blk, blk->r0, blk->r1, 0, cols(*blk));
    }
  };
#pragma omp parallel
  {
    const Index t = omp_get_thread_num(), threads = omp_get_num_threads();
    for (const Block& blk : ds.blocks) {
      if (blk.group >= 0) continue;
      slice(blk, t, threads);
      // Two large blocks may share rows (an output adds to them) and split them differently.
#pragma omp barrier
    }
#pragma omp for schedule(dynamic, 1)
    for (Index k = 0; k < ds.groups; ++k) run_group(k);
  }
}

// This core's L2 in bytes as the system reports it (streaming_tile_sizes), else 1 MiB.
long l2_bytes() {
  const long reported = streaming_tile_sizes(1, 1).l2_bytes;
  return reported > 0 ? reported : 1L << 20;
}

// The scores of every visible cell of ds (all query rows, its spans f and e) by the CPU's own kernel
// (kernels::TileProducts::strip_scores) into S: row i at S + i·ld, key j at column j − L, where L
// is a multiple of kKeyStrip and the rows are wide enough for whole strips. Each strip of 32 keys
// is one thread's item: for each slice of d it packs the strip's keys once into the thread's
// buffer and multiplies every run of query rows that sees any of them, 12 rows at a time, adding
// the slices up in S. OpenBLAS's products on the cover each pack their operands again, which left
// a causal quadtree's small products at half of OpenBLAS's full speed (docs/PERFORMANCE.md, "Where
// host D's causal (1024, 4096) time goes").
void own_wide_scores(const Context& cx, const DenseStrip& ds, Index L, Index H, float* S, Index ld) {
  const kernels::TileProducts& tiles = kernels::tile_products();
  const Problem& p = *cx.p;
  const Index n = cx.n, m = cx.m, dk = cx.dk;
  constexpr Index w = kernels::kKeyStrip;
  // Slices of d: a strip's slice and a tile's query rows (32 + 12 floats a step) in a quarter of
  // this core's L2, so that the strip stays there while the query rows pass through.
  const long l2 = l2_bytes();
  Index slice = 128;
  while (slice < dk && static_cast<long>(2 * slice * (w + 12) * 4) <= l2 / 4) slice *= 2;
  const Index slices = (dk + slice - 1) / slice;
  slice = (dk + slices - 1) / slices;  // even slices
  struct Item {
    Index strip = 0, rows = 0;
    std::vector<std::pair<Index, Index>> runs;  // query rows [a, b) that see a key of the strip
  };
  std::vector<Item> items;
  for (Index st = L / w; st * w < H; ++st) {
    const Index k0 = st * w, k1 = k0 + w;
    Item it;
    it.strip = st;
    Index start = -1;
    for (Index i = 0; i <= n; ++i) {
      const bool sees = i < n && ds.f[static_cast<size_t>(i)] < std::min(k1, ds.e[static_cast<size_t>(i)]) &&
                        ds.e[static_cast<size_t>(i)] > k0;
      if (sees && start < 0) start = i;
      if (!sees && start >= 0) {
        it.runs.emplace_back(start, i);
        it.rows += i - start;
        start = -1;
      }
    }
    if (it.rows > 0) items.push_back(std::move(it));
  }
  // The largest items first, so that the threads end together.
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.rows > b.rows; });
#pragma omp parallel
  {
    std::vector<float> packed(static_cast<size_t>(w * slice));
#pragma omp for schedule(dynamic, 1)
    for (size_t x = 0; x < items.size(); ++x) {
      const Item& it = items[x];
      const Index first = it.strip * w, keys = std::min(w, m - first);
      for (Index d0 = 0; d0 < dk; d0 += slice) {
        const Index depth = std::min(slice, dk - d0);
        tiles.pack(p.K.row(first).data() + d0, dk, keys, depth, packed.data());
        for (const auto& [a, b] : it.runs) {
          float* s = S + a * ld + (first - L);
          tiles.strip_scores(p.Q.row(a).data() + d0, dk, packed.data(), 1, depth, b - a, d0 > 0, s, ld);
        }
      }
    }
  }
}

// O = weights · V by the CPU's own kernel (kernels::TileProducts::panel_output), the weights in S
// as own_wide_scores left them after the softmax (zero outside each row's span, within [L, H)).
// Each block of 64 columns of V is one thread's item: for each slice of keys it copies that block
// of V's rows into a buffer of its own (in L2), and every 6-row panel of the weights whose keys
// meet the slice multiplies it, over the keys any of the panel's rows sees. Rows that see no key
// are zero.
void own_wide_output(const Context& cx, const DenseStrip& ds, Index L, Index H, const float* S, Index ld,
                     Matrix& output) {
  const kernels::TileProducts& tiles = kernels::tile_products();
  const Problem& p = *cx.p;
  const Index n = cx.n, dv = cx.dv;
  constexpr Index kPanel = 6, kWidth = 64;
  const Index panels = (n + kPanel - 1) / kPanel;
  std::vector<Index> lo(static_cast<size_t>(panels), H), hi(static_cast<size_t>(panels), L);
  for (Index i = 0; i < n; ++i) {
    const size_t q = static_cast<size_t>(i / kPanel);
    const Index f = ds.f[static_cast<size_t>(i)], e = ds.e[static_cast<size_t>(i)];
    if (f >= e) continue;
    lo[q] = std::min(lo[q], f);
    hi[q] = std::max(hi[q], e);
  }
  // The keys any row sees (S's columns may go past m to a whole strip).
  const Index first = *std::min_element(lo.begin(), lo.end()), last = *std::max_element(hi.begin(), hi.end());
  // Slices of keys: a slice of the block (64 floats a key) in a quarter of this core's L2.
  const Index slice = std::max<Index>(64, static_cast<Index>(l2_bytes() / 4 / (kWidth * 4)));
#pragma omp parallel
  {
    std::vector<float> block(static_cast<size_t>(slice * kWidth));
#pragma omp for schedule(dynamic, 1)
    for (Index c = 0; c < dv; c += kWidth) {
      const Index w = std::min(kWidth, dv - c);
      for (Index k0 = first; k0 < last; k0 += slice) {
        const Index k1 = std::min(last, k0 + slice);
        for (Index j = k0; j < k1; ++j) {
          std::memcpy(block.data() + (j - k0) * w, p.V.row(j).data() + c, sizeof(float) * static_cast<size_t>(w));
        }
        for (Index q = 0; q < panels; ++q) {
          const Index s0 = std::max(lo[static_cast<size_t>(q)], k0), s1 = std::min(hi[static_cast<size_t>(q)], k1);
          if (s0 >= s1) continue;
          const Index i = q * kPanel, rows = std::min(kPanel, n - i);
          tiles.panel_output(S + i * ld + (s0 - L), ld, block.data() + (s0 - k0) * w, w, rows, s1 - s0, w,
                             /*add=*/s0 > lo[static_cast<size_t>(q)], output.row(i).data() + c, dv);
        }
      }
      for (Index q = 0; q < panels; ++q) {
        if (lo[static_cast<size_t>(q)] >= hi[static_cast<size_t>(q)]) {
          const Index i = q * kPanel;
          output.block(i, c, std::min(kPanel, n - i), w).setZero();
        }
      }
    }
  }
}

// O = weights · V on OpenBLAS for dense_wide, the weights in S (row i at S + i·ld, key j at
// column j − L): under a causal mask with n = m one triangular product, else the cover's products.
void blas_wide_output(const Context& cx, const DenseStrip& ds, Index L, const float* S, Index ld, Matrix& output) {
  const Problem& p = *cx.p;
  const Index n = cx.n, dv = cx.dv;
  if (p.options.mask.kind == MaskKind::Causal && n == cx.m) {
    // The weights are lower triangular: O = A V is one triangular product in place on a copy of
    // V (OpenBLAS's strmm, each thread on its own columns), faster than the quadtree's products.
#pragma omp parallel
    {
      const auto [j0, j1] = column_slice(dv, omp_get_thread_num(), omp_get_num_threads());
      if (j0 < j1) {
        // Row by row with memcpy: Eigen's block copy, in this file's baseline x86-64, moves 16
        // bytes at a time, and the copy is 7% of the stage (1% of the bench, 28 of 40 rounds).
        for (Index i = 0; i < n; ++i) {
          std::memcpy(output.row(i).data() + j0, p.V.row(i).data() + j0, sizeof(float) * static_cast<size_t>(j1 - j0));
        }
        blas::trmm_lower(n, j1 - j0, S, ld, output.data() + j0, dv);
      }
    }
  } else {
    // Each output row is written by its first product (beta = 0) and accumulated by the later
    // ones, so the 16 MiB output at d_v = 4096 is not zeroed first; rows no product writes (all
    // keys blocked) are zeroed at the end. Planned in cover order before the products run (a
    // row's blocks run in that order, and the threads only read the plan): whether a block's
    // product writes its rows or adds to them, and which of its rows must be zeroed first.
    std::vector<char> written(static_cast<size_t>(n), 0);
    std::vector<char> fresh(ds.blocks.size(), 0);
    std::vector<std::vector<Index>> zero_first(ds.blocks.size());
    for (size_t b = 0; b < ds.blocks.size(); ++b) {
      const Block& blk = ds.blocks[b];
      const auto first = written.begin() + blk.r0, last = written.begin() + blk.r1;
      fresh[b] = std::none_of(first, last, [](char w) { return w != 0; });
      if (!fresh[b]) {
        for (Index i = blk.r0; i < blk.r1; ++i) {
          if (!written[static_cast<size_t>(i)]) zero_first[b].push_back(i);
        }
      }
      std::fill(first, last, 1);
    }
    // O[i0:i1, j0:j1] (+)= weights[i0:i1, keys] · V[keys, j0:j1] for a block's keys.
    run_wide_blocks(
        ds, [dv](const Block&) { return dv; },
        [&](const Block& blk, Index i0, Index i1, Index j0, Index j1) {
          const size_t b = static_cast<size_t>(&blk - ds.blocks.data());
          for (Index i : zero_first[b]) {
            if (i >= i0 && i < i1) output.row(i).segment(j0, j1 - j0).setZero();
          }
          blas::gemm_nn(i1 - i0, j1 - j0, blk.c1 - blk.c0, S + i0 * ld + (blk.c0 - L), ld, p.V.row(blk.c0).data() + j0,
                        dv, fresh[b] ? 0.0f : 1.0f, output.row(i0).data() + j0, dv);
        },
        /*disjoint=*/false);
    for (Index i = 0; i < n; ++i) {
      if (!written[static_cast<size_t>(i)]) output.row(i).setZero();
    }
  }
}

// All query rows as one strip: the visible cells covered by products down to `leaf` rows (a
// causal triangle becomes a quadtree of squares; 0: one product), run by run_wide_blocks, and
// under a causal mask the output as one triangular product; or either product by the CPU's own
// kernels (plan.own_scores: own_wide_scores; plan.own_output: own_wide_output). Blocked tiles are
// neither multiplied nor exponentiated.
DenseThreadTimes dense_wide(const Context& cx, const DensePlan& plan, Matrix& output) {
  DenseThreadTimes tt;
  const Problem& p = *cx.p;
  const Index n = cx.n, dk = cx.dk, dv = cx.dv;
  auto t0 = std::chrono::steady_clock::now();
  const bool own_scores = plan.own_scores && own_dense_kernels();
  const bool own_output = plan.own_output && own_dense_kernels() && dv % 16 == 0;
  DenseStrip ds;
  ds.leaf = plan.leaf > 0 ? plan.leaf : n;
  // One product for all rows runs on OpenBLAS's threads (run_wide_blocks), never as a group.
  ds.group_rows = ds.leaf >= n ? 0 : kWideGroup;
  Index L = 0, H = 0;
  if (!plan_strip(cx, 0, n, ds, L, H)) {
    output.setZero();  // every row fully masked: zero weights, zero output
    return tt;
  }
  if (own_scores) {  // whole strips of keys
    L = L / kernels::kKeyStrip * kernels::kKeyStrip;
    H = (H + kernels::kKeyStrip - 1) / kernels::kKeyStrip * kernels::kKeyStrip;
  }
  const Index ld = H - L;
  // Not zeroed first: the products write every visible cell and the softmax zeroes the rest
  // (a 4 MiB memset and its page faults were a tenth of the scores' time at (1024, 4096)).
  const std::unique_ptr<float[]> scores_buffer(new float[static_cast<size_t>(n * ld)]);
  float* S = scores_buffer.get();
  if (own_scores) {
    own_wide_scores(cx, ds, L, H, S, ld);
  } else {
    // Scores of a block's rows [i0, i1) and keys [c0 + j0, c0 + j1).
    run_wide_blocks(
        ds, [](const Block& blk) { return blk.c1 - blk.c0; },
        [&](const Block& blk, Index i0, Index i1, Index j0, Index j1) {
          blas::gemm_nt(i1 - i0, j1 - j0, dk, p.Q.row(i0).data(), dk, p.K.row(blk.c0 + j0).data(), dk, 0.0f,
                        S + i0 * ld + (blk.c0 + j0 - L), ld);
        },
        /*disjoint=*/true);
  }
  auto t1 = std::chrono::steady_clock::now();
  tt.scores += std::chrono::duration<double, std::milli>(t1 - t0).count();

#pragma omp parallel
  {
    std::vector<float> row;
    std::vector<double> x;
#pragma omp for schedule(dynamic, 16)
    for (Index i = 0; i < n; ++i) {
      dense_softmax_row(cx, i, S + i * ld - L, ds.f[static_cast<size_t>(i)], ds.e[static_cast<size_t>(i)], L, H, row, x);
    }
  }
  auto t2 = std::chrono::steady_clock::now();
  tt.softmax += std::chrono::duration<double, std::milli>(t2 - t1).count();

  if (own_output) {
    own_wide_output(cx, ds, L, H, S, ld, output);
  } else {
    blas_wide_output(cx, ds, L, S, ld, output);
  }
  tt.output += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t2).count();
  return tt;
}

}  // namespace

// [SECTION] attention_output_cpu

namespace {

// The dense strips: each thread's strips of plan.rows query rows in turn, each with full rows of
// scores (the exact two-pass softmax, as numpy computes it) in a per-thread buffer that stays in
// cache: scores, softmax, output, then the next strip. One parallel region, no n × m matrix
// (nothing to page in per run). Returns the threads' times in each stage, summed.
DenseThreadTimes dense_strips(const Context& cx, const DensePlan& plan, Matrix& output) {
  std::vector<DenseThreadTimes> times(static_cast<size_t>(omp_get_max_threads()));
  const Index n = cx.n, strip = std::max<Index>(1, plan.rows);
  const Index strips = (n + strip - 1) / strip;
#pragma omp parallel
  {
    DenseStrip ds;
    ds.leaf = plan.leaf > 0 ? plan.leaf : strip;
    DenseThreadTimes& my = times[static_cast<size_t>(omp_get_thread_num())];
    // Last strips first: under a causal mask they see the most keys, so the threads end together.
#pragma omp for schedule(dynamic, 1)
    for (Index b = 0; b < strips; ++b) {
      const Index r0 = (strips - 1 - b) * strip;
      dense_strip(cx, r0, std::min(n, r0 + strip), ds, output, my);
    }
  }
  DenseThreadTimes sum;
  for (const DenseThreadTimes& tt : times) {
    sum.scores += tt.scores;
    sum.softmax += tt.softmax;
    sum.output += tt.output;
  }
  return sum;
}

// Resets *timings (or a local) and runs path(t, start, guard), the fast path, unless p needs the
// exact rows, which are then timed as one fused stage (compute_streaming_cpu makes its own
// context). The guard comes from the magnitudes validation read: Q and K are not read again.
template <class Path>
Matrix timed_output(const Problem& p, StageTimes* timings, const Path& path) {
  const Magnitudes read = validate_problem(p);
  StageTimes local;
  StageTimes& t = timings ? *timings : local;
  t = StageTimes{};
  const auto start = std::chrono::steady_clock::now();
  const ScoreOverflowGuard guard(p, read);
  if (!needs_exact_rows(p, guard)) return path(t, start, guard);
  Matrix output = compute_streaming_cpu(p).output;
  t.fused = true;
  t.total_ms = ms_since(start);
  return output;
}

}  // namespace

bool needs_exact_rows(const Problem& p, const ScoreOverflowGuard& guard) {
  return p.options.normalizer != Normalizer::Softmax ||
         fast_inverse_divisor(effective_temperature(p.Q.cols(), p.options)) == 0 || guard.active();
}

// Large d packs Kᵀ and V again per strip (16 MiB each at d = 4096): fewer, taller strips pack
// them fewer times.
Index dense_strip_rows(Index m, Index d) {
  static const Index forced = [] {
    const char* e = std::getenv("ATTNLAB_STRIP_ROWS");
    return e ? std::clamp<Index>(std::atol(e), 1, 4096) : Index{0};
  }();
  if (forced > 0) return forced;
  const bool large = d >= 512;
  const Index budget = large ? Index{8} << 20 : Index{1} << 20;
  Index r = large ? 512 : 256;
  while (r > 32 && r * m * static_cast<Index>(sizeof(float)) > budget) r /= 2;
  return r;
}

std::string DensePlan::name() const {
  const std::string leaf_name = leaf > 0 ? std::to_string(leaf) : "full";
  if (layout == Layout::Wide) {
    const char* own = own_scores && own_output ? ", own kernels"
                      : own_scores             ? ", own scores"
                      : own_output             ? ", own output"
                                               : "";
    return "wide " + leaf_name + own;
  }
  return "strips " + std::to_string(rows) + "/" + leaf_name;
}

bool own_dense_kernels() {
  const kernels::TileProducts& t = kernels::tile_products();
  return t.strip_scores && t.pack && t.panel_output;
}

bool wide_fits(const Problem& p) {
  constexpr Index kWideBudget = Index{256} << 20;  // bytes of weights
  return p.Q.rows() * p.K.rows() * static_cast<Index>(sizeof(float)) <= kWideBudget;
}

DensePlan default_dense_plan(const Problem& p) {
  if (use_wide(p)) {
    // The CPU's own kernels where it has them: the output's packs each block of V once, and under
    // a mask the scores' skip the blocked half at 12 × 32 and pack the keys once, where OpenBLAS's
    // one product without a mask was as fast (docs/PERFORMANCE.md, "What the engine does").
    const Index n = p.Q.rows(), m = p.K.rows();
    const bool masked = p.options.mask.visible_cells(n, m) < static_cast<long long>(n) * m;
    const bool own = own_dense_kernels();
    return {DensePlan::Layout::Wide, 0, kWideLeaf, own && masked, own};
  }
  return {DensePlan::Layout::Strips, dense_strip_rows(p.K.rows(), std::max(p.Q.cols(), p.V.cols())), kSubStrip};
}

Matrix attention_output_cpu(const Problem& p, bool streaming, StageTimes* timings) {
  if (!streaming) return attention_output_cpu(p, default_dense_plan(p), timings);
  return timed_output(p, timings, [&](StageTimes& t, std::chrono::steady_clock::time_point start,
                                      const ScoreOverflowGuard& guard) {
    const Context cx = detail::make_context(p, guard, false, nullptr, KeyLayout::Tiled);
    Matrix output(cx.n, cx.dv);
    std::vector<RowDiagnostics> rows(static_cast<size_t>(cx.n));
    detail::run_rows(cx, output, rows, {});
    t.fused = true;
    t.total_ms = ms_since(start);
    return output;
  });
}

Matrix attention_output_cpu(const Problem& p, const DensePlan& plan, StageTimes* timings) {
  return timed_output(p, timings, [&](StageTimes& t, std::chrono::steady_clock::time_point start,
                                      const ScoreOverflowGuard& guard) {
    const bool wide = plan.layout == DensePlan::Layout::Wide && wide_fits(p);
    const Context cx = detail::make_context(p, guard, false, nullptr, wide ? KeyLayout::None : KeyLayout::Transposed);
    Matrix output(cx.n, cx.dv);
    const DenseThreadTimes sum =
        wide ? dense_wide(cx, plan, output)
             : dense_strips(cx, plan.layout == DensePlan::Layout::Strips ? plan : default_dense_plan(p), output);
    t.total_ms = ms_since(start);
    if (wide) {
      t.softmax_ms = sum.softmax;
      t.output_ms = sum.output;
      t.scores_ms = t.total_ms - t.softmax_ms - t.output_ms;  // with the set-up: the stages add up to the wall time
      return output;
    }
    // Each stage's share of the threads' time, applied to the wall time: the three add up to it.
    const double all = sum.scores + sum.softmax + sum.output;
    if (all > 0) {
      t.scores_ms = t.total_ms * sum.scores / all;
      t.softmax_ms = t.total_ms * sum.softmax / all;
      t.output_ms = t.total_ms * sum.output / all;
    }
    return output;
  });
}

}  // namespace attnlab
