// The output-only softmax attention used by `attnlab bench`: the fast paths, with stage timings
// (StageTimes, attention/bench.hpp).
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/bench.hpp"
#include "engine/attention/overflow_guard.hpp"

#include <string>

namespace attnlab {

// How the dense output-only path covers the visible cells with products. Every plan gives the same
// output within the same bounds; which is fastest depends on the CPU and its BLAS kernels, so
// `attnlab bench` measures them (cpu/dense_plan.hpp).
struct DensePlan {
  enum class Layout {
    Strips,  // strips of `rows` query rows, each thread its own: scores, softmax, output in cache
    Wide,    // all query rows at once, every product split between the threads (large d)
  };
  Layout layout = Layout::Strips;
  Eigen::Index rows = 256;  // Strips: query rows per strip
  // The smallest product a blocked staircase is cut into (cover_rows' leaves), in query rows; 0: none,
  // one product over every key any row of the strip (Wide: of the problem) sees, its blocked
  // cells multiplied and then left out.
  Eigen::Index leaf = 32;
  // Wide: the products by the CPU's own kernels (kernels::TileProducts, AVX-512) instead of
  // OpenBLAS's on the cover, which pack their operands again each. The scores on keys packed once
  // per slice of d, every visible cell in tiles of 12 rows × 32 keys; the output on blocks of V
  // copied once per slice of keys, 6 rows × 64 columns at a time. The cover's products remain for
  // what the kernels do not run (an output whose d_v is not a multiple of 16), and for all of it
  // where the CPU has no such kernels.
  bool own_scores = false, own_output = false;
  // "strips 256/32", "strips 256/full", "wide 64", "wide full", "wide 64, own kernels" (both
  // products), "wide full, own output", "wide 64, own scores" (parse_dense_plan reads it back).
  std::string name() const;
  friend bool operator==(const DensePlan&, const DensePlan&) = default;
};

// The plan the engine runs without measuring: strips up to ~1 MiB of scores with 32-row
// sub-strips below d = 512, all rows at once with 64-row leaves from d = 512 (while the n × m
// weights fit in 256 MiB), where the CPU has its own kernels the output on them, and under a mask
// the scores too.
DensePlan default_dense_plan(const Problem& p);

// Whether this CPU has the kernels of DensePlan::own_scores and own_output (AVX-512, and
// ATTNLAB_TILE_BLAS unset).
bool own_dense_kernels();

// Whether the Wide layout can run p: its n × m weights fit in 256 MiB.
bool wide_fits(const Problem& p);

// Problems only the streaming path's exact rows compute, whatever the plan: other normalizers,
// s·T beyond float, scores whose float32 sum may overflow (the guard made from p).
bool needs_exact_rows(const Problem& p, const ScoreOverflowGuard& guard);

// The default strip height for m keys and d = max(d_k, d_v): small d (softmax-bound) keeps a
// strip's scores within ~1 MiB, in L2 between the three stages (32 to 256 rows); large d
// (product-bound) up to 512 rows and 8 MiB, since every strip packs Kᵀ and V again.
// ATTNLAB_STRIP_ROWS overrides it.
Eigen::Index dense_strip_rows(Eigen::Index m, Eigen::Index d);

// softmax(Q Kᵀ / (s·T) + mask) V for the problem (Q: n × d_k, K: m × d_k, V: m × d_v), returning
// the n × d_v output. Dense: the n × m weights in one buffer, each stage over all rows in turn;
// streaming: query/key tiles with an online softmax. Blocked tiles (causal, window, prefix,
// padding) are neither multiplied nor exponentiated. No diagnostics or statistics. Normalizers
// other than softmax go through compute_streaming_cpu. Throws InputError on invalid input.
Matrix attention_output_cpu(const Problem& p, bool streaming, StageTimes* timings = nullptr);
// The dense path on a given plan (a Wide plan that does not fit runs the default).
Matrix attention_output_cpu(const Problem& p, const DensePlan& plan, StageTimes* timings = nullptr);

}  // namespace attnlab
