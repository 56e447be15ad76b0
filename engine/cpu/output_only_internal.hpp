// What the output-only paths of `attnlab bench` share (cpu/output_only.hpp): the dense path's
// strips of query rows, the products that cover their visible cells, a row's softmax in place, and
// the two layouts that run them (cpu/output_strips.cpp: per-thread strips; cpu/output_wide.cpp: all
// rows at once for large d), which cpu/output_only.cpp chooses between and times.
#pragma once

#include "engine/cpu/output_only.hpp"
#include "engine/cpu/streaming_internal.hpp"

#include <vector>

namespace attnlab::detail {

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

// One run's milliseconds in each stage, summed over its threads.
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

// Query row i of the dense paths: s[j] (key j, for j in [L, H)) holds its scores over its visible
// keys [f, e) and becomes its weights, zero outside [f, e). row and x are scratch.
void dense_softmax_row(const Context& cx, Index i, float* s, Index f, Index e, Index L, Index H,
                       std::vector<float>& row, std::vector<double>& x);

// Rows [r0, r1): each row's visible keys (ds.f, ds.e), the keys any of them sees [L, H) and the
// rectangles that cover the visible cells (ds.blocks). Returns false when every row is fully
// masked.
bool plan_strip(const Context& cx, Index r0, Index r1, DenseStrip& ds, Index& L, Index& H);

// The dense strips: each thread's strips of plan.rows query rows in turn, each with full rows of
// scores (the exact two-pass softmax, as numpy computes it) in a per-thread buffer that stays in
// cache: scores, softmax, output, then the next strip. One parallel region, no n × m matrix
// (nothing to page in per run). Returns the threads' times in each stage, summed.
DenseThreadTimes dense_strips(const Context& cx, const DensePlan& plan, Matrix& output);

// All query rows as one strip: the visible cells covered by products down to `leaf` rows (a
// causal triangle becomes a quadtree of squares; 0: one product), run by run_wide_blocks, and
// under a causal mask the output as one triangular product; or either product by the CPU's own
// kernels (plan.own_scores: own_wide_scores; plan.own_output: own_wide_output). Blocked tiles are
// neither multiplied nor exponentiated.
DenseThreadTimes dense_wide(const Context& cx, const DensePlan& plan, Matrix& output);

}  // namespace attnlab::detail
