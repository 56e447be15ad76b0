// What the streaming path (cpu/streaming.cpp) shares with the output-only paths of `attnlab bench`
// (cpu/output_only.cpp): the context of one computation and the tiled pass over all query rows.
#pragma once

#include "engine/cpu/cpu_internal.hpp"
#include "engine/cpu/softmax_kernels.hpp"
#include "engine/cpu/streaming.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <vector>

namespace attnlab::detail {

using Index = Eigen::Index;

// Floats on 64-byte boundaries (one cache line, one AVX-512 vector): the tile products' vector
// loads and stores then never straddle two lines. With malloc's 16-byte boundaries a third of them
// did, and the products ran markedly slower (docs/PERFORMANCE.md, "Streaming on the CPU").
class AlignedFloats {
public:
  void resize(size_t count) {
    const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
    data_.reset(static_cast<float*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64)));
    if (!data_) throw std::bad_alloc();
  }
  float* data() const { return data_.get(); }
  float* begin() const { return data_.get(); }
  explicit operator bool() const { return data_ != nullptr; }

private:
  struct Free {
    void operator()(float* p) const { std::free(p); }
  };
  std::unique_ptr<float, Free> data_;
};

struct Context {
  const Problem* p = nullptr;
  // Kᵀ (d_k × m): S = Q Kᵀ as a plain product, which OpenBLAS runs 1.5–3× faster on tiles than
  // the transposed one.
  Matrix Kt;
  // K in strips of 32 keys (kernels::pack_key_strips) for the CPU's own tile products, in place of
  // Kᵀ where they run (kernels::tile_products()).
  AlignedFloats key_strips;
  AlignedFloats values;  // V (m × d_v) on cache lines, for the same products
  Index row_tile = 0, col_tile = 0;
  Index n = 0, m = 0, dk = 0, dv = 0;
  double divisor = 1;
  float c = 0;        // 1/(s·T) as a normal float, or 0: every row then goes the exact path
  ScoreOverflowGuard guard;  // scores whose float32 sum may overflow
  bool full = false;  // compute mode: stats, diagnostics and heatmap; bench mode: output only
  AllScores all_scores = AllScores::Visible;  // compute mode only (all_scores_source, attention/stats.hpp)
  Index hrows = 0, hcols = 0;
  std::vector<std::int32_t> pixel_col;  // key j → heatmap column (narrow pixels only)
  std::vector<Index> pixel_ends;        // heatmap column px → pixel_first(px + 1) (wide pixels only)
};

// What each thread gathers; merged after the parallel loop. `all` only where the scores' own
// statistics come from the computed cells (AllScores::Tiles, and the exact rows).
struct ThreadAcc {
  kernels::ScoreMoments all, visible;
  std::vector<float> heat_sum, heat_max;  // hrows × hcols
  std::vector<Index> exact_rows;
};

// How the context holds the keys for the scores products: not at all (the dense wide path
// multiplies by K itself), as Kᵀ (OpenBLAS's plain products), or for the tiled pass, in strips
// where the CPU has its own tile products and as Kᵀ where it does not.
enum class KeyLayout { None, Transposed, Tiled };

// The context of one computation: sizes, the overflow guard (made from the magnitudes
// validate_problem read), the keys in the layout asked for, the tiles, and for compute mode (full)
// the heatmap's pixels. Not copyable in practice (Kt is large): returned by value through copy
// elision only.
Context make_context(const Problem& p, const ScoreOverflowGuard& guard, bool full, const StreamingOptions* so,
                     KeyLayout keys);

// Runs the tiled pass (softmax) or the exact rows (other normalizers) over all query rows in
// parallel, then the rows that overflowed; returns the merged accumulators. Cancelling skips the
// remaining tiles (exceptions cannot leave an OpenMP region); the caller throws Cancelled.
ThreadAcc run_rows(const Context& cx, Matrix& output, std::vector<RowDiagnostics>& rows,
                   const std::function<void(double)>& progress_f, const std::atomic<bool>* cancel = nullptr);

double ms_since(std::chrono::steady_clock::time_point t0);

// The keys query row i may see: [first, last) for interval masks, all of them for a custom one.
inline void visible_span(const Mask& mask, Index i, Index m, Index& first, Index& last) {
  first = 0;
  last = m;
  if (mask.kind != MaskKind::Custom) mask.visible_range(i, m, first, last);
}

}  // namespace attnlab::detail
