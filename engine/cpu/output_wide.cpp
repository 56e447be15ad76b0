// The dense output-only path for large d (cpu/output_only_internal.hpp): all query rows at once,
// every product split between the threads (run_wide_blocks), the scores and the output on OpenBLAS
// or on the CPU's own AVX-512 kernels, and under a causal mask the output as one triangular product.
#include "engine/cpu/output_only_internal.hpp"

#include "engine/cpu/blas.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

namespace attnlab::detail {

namespace {

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

}  // namespace

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


}  // namespace attnlab::detail
