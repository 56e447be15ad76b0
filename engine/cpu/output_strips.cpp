// The dense output-only path in strips of query rows (cpu/output_only_internal.hpp): each thread
// its own strips, whose scores stay in cache through the softmax and the output; the cover of a
// strip's visible cells with products, and a row's softmax in place, which the wide path runs too.
#include "engine/cpu/output_only_internal.hpp"

#include "engine/cpu/blas.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab::detail {

namespace {

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

}  // namespace

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

}  // namespace attnlab::detail
