// Scores near float32's limit, computed in double on every backend so that whether they overflow
// never depends on a BLAS kernel's or a GPU's order of summation (ScoreOverflowGuard).
#pragma once

#include "engine/attention/attention.hpp"

#include <vector>

namespace attnlab {

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
  explicit ScoreOverflowGuard(const Problem& p) : ScoreOverflowGuard(p, magnitudes(p)) {}
  // With p's magnitudes already read (validate_problem returns them).
  ScoreOverflowGuard(const Problem& p, Magnitudes m);
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

}  // namespace attnlab
