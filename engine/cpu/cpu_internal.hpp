// Pieces shared by the dense (cpu/dense.cpp) and streaming (cpu/streaming.cpp) CPU paths;
// implemented in cpu/cpu_internal.cpp. What the GPU shares with them lives in attention/.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/overflow_guard.hpp"
#include "engine/attention/stats.hpp"
#include "engine/cpu/softmax_kernels.hpp"

#include <vector>

namespace attnlab::detail {

// Moments of the unblocked cells of score row i over columns [j0, j1) for any mask (a per-cell
// test for custom masks, one contiguous run otherwise).
void visible_moments(const Mask& mask, Eigen::Index i, Eigen::Index m, const float* scores_row, Eigen::Index j0,
                     Eigen::Index j1, kernels::ScoreMoments& out);

// The logits of score row i that the normalizer sees (m doubles into x; blocked cells −∞). For the
// shift-invariant normalizers (softmax, sparsemax, hardmax) they are (s − max visible s)/(s·T):
// the same weights, but the largest logit is exactly 0, so a tiny temperature cannot overflow it
// to ±∞ and sparsemax's running sums never add 1 to 1e30. A +∞ maximum keeps only the +∞ cells
// (at 0). Sigmoid gets s/(s·T) as it is.
void normalizer_logits(Normalizer normalizer, const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s,
                       double divisor, double* x);

// out = Kᵀ (K: m × d_k, out: d_k × m), row-major, cache-blocked.
void transpose_into(const Matrix& K, Matrix& out);

}  // namespace attnlab::detail
