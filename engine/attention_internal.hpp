// Pieces shared by the dense (attention.cpp) and streaming (streaming.cpp) CPU paths.
#pragma once

#include "engine/attention.hpp"
#include "engine/softmax_kernels.hpp"

namespace attnlab::detail {

// DESIGN.md's global stats from two runs of score moments: `all` over every n × m score, `visible`
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

// A row's diagnostics from the online-softmax sums of the streaming path (engine/streaming.cpp,
// [SECTION] Online softmax): z, rest, ties, t, u2, u3 in the frame of the row's maximum score.
// Shared with the GPU's streaming path, which keeps the same sums. z = 0: a fully masked row.
RowDiagnostics diagnostics_from_online_sums(double z, double rest, double ties, double t, double u2, double u3);

// Throws InputError naming the first NaN score of row i (an overflowed Q·K dot product).
[[noreturn]] void throw_nan_score(const float* scores_row, Eigen::Index i, Eigen::Index m);

// out = Kᵀ (K: m × d_k, out: d_k × m), row-major, cache-blocked.
void transpose_into(const Matrix& K, Matrix& out);

}  // namespace attnlab::detail
