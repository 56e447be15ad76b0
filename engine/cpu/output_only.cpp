// The output-only softmax attention behind `attnlab bench` (cpu/output_only.hpp): the plans (the
// default one, strips or wide), the front doors that time them, and the streaming tiled pass. The
// dense layouts are their own files: cpu/output_strips.cpp and cpu/output_wide.cpp.
#include "engine/cpu/output_only.hpp"

#include "engine/cpu/output_only_internal.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace attnlab {

using detail::Context;
using detail::dense_strips;
using detail::dense_wide;
using detail::DenseThreadTimes;
using detail::Index;
using detail::KeyLayout;
using detail::kSubStrip;
using detail::kWideLeaf;
using detail::ms_since;

namespace {

// Whether the dense bench covers all query rows at once (dense_wide) rather than with per-thread
// strips: at large d the products dominate and their operands are large, and per-thread strips
// would each pack Kᵀ and V again. At d = 256 the strips were still faster under a causal mask
// (docs/PERFORMANCE.md, "The dense CPU path"). Only while the n × m weights fit in a modest buffer.
bool use_wide(const Problem& p) { return std::max(p.Q.cols(), p.V.cols()) >= 512 && wide_fits(p); }

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
