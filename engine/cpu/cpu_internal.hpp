// Pieces shared by the dense (cpu/dense.cpp) and streaming (cpu/streaming.cpp) CPU paths, and by
// the GPU backend's scores (ScoreOverflowGuard); implemented in cpu/cpu_internal.cpp.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/cpu/softmax_kernels.hpp"

#include <vector>

namespace attnlab::detail {

// The global statistics from two runs of score moments: `all` over every n × m score, `visible`
// over the unblocked cells only. Logits are the visible scores divided by s·T (> 0), so their
// mean, std, min and max follow from the visible scores' sums without a second pass.
Stats stats_from_moments(const kernels::ScoreMoments& all, const kernels::ScoreMoments& visible, double divisor);

// Moments of the unblocked cells of score row i over columns [j0, j1) for any mask (a per-cell
// test for custom masks, one contiguous run otherwise).
void visible_moments(const Mask& mask, Eigen::Index i, Eigen::Index m, const float* scores_row, Eigen::Index j0,
                     Eigen::Index j1, kernels::ScoreMoments& out);

// 1/(s·T) as a float when it is a normal float, else 0: the fast float softmax computes weights
// as exp((s − max s)·c) and falls back to double logits when c is 0 here.
float fast_inverse_divisor(double divisor);

// The logits of score row i that the normalizer sees (m doubles into x; blocked cells −∞). For the
// shift-invariant normalizers (softmax, sparsemax, hardmax) they are (s − max visible s)/(s·T):
// the same weights, but the largest logit is exactly 0, so a tiny temperature cannot overflow it
// to ±∞ and sparsemax's running sums never add 1 to 1e30. A +∞ maximum keeps only the +∞ cells
// (at 0). Sigmoid gets s/(s·T) as it is.
void normalizer_logits(Normalizer normalizer, const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s,
                       double divisor, double* x);

// Scores whose float32 sum could overflow are computed in double instead. Whether a float32 sum
// overflows depends on the order of summation (FMA or not, the BLAS kernel, the GPU):
// 1e30·1e30 + 1e30·(−1e30) is ∞ − ∞ = NaN one way and +∞ with a fused multiply-add, while the
// exact score is 0. A cell is at risk when Σ_l |q_l·k_l| reaches float's largest value less the
// rounding of d_k + 1 operations (below that, no partial sum in any order can pass it). That
// sum is itself computed in double in index order, where each product of two floats is exact, so
// which cells are at risk is decided the same way on every machine; each is then the exact score
// rounded to float (±∞ only where the exact score is beyond float32). Cells below the bound keep
// the BLAS product, which is finite in any order.
class ScoreOverflowGuard {
public:
  ScoreOverflowGuard() = default;  // inactive
  explicit ScoreOverflowGuard(const Problem& p);
  // False for every ordinary problem (max|Q| · max|K| · d_k below the risk bound): nothing to scan.
  bool active() const { return active_; }
  // Recomputes the at-risk scores of query row i among keys [j0, j1) (s[0] is key j0) in double.
  // Returns how many cells were recomputed.
  Eigen::Index apply(Eigen::Index i, Eigen::Index j0, Eigen::Index j1, float* s) const;

private:
  const Problem* p_ = nullptr;
  bool active_ = false;
  double risk_ = 0;              // the bound on Σ|q·k| from which a float32 sum may overflow
  double k_max_ = 0;             // max |K|
  std::vector<float> key_max_;   // per key row: max |k_j| (only when active)
};

// out = Kᵀ (K: m × d_k, out: d_k × m), row-major, cache-blocked.
void transpose_into(const Matrix& K, Matrix& out);

}  // namespace attnlab::detail
