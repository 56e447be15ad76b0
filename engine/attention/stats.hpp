// The global statistics of a result (Result::stats: mean, std, min and max of the scores over all
// n × m cells and of the logits over the visible ones), defined once for every backend and path:
// moments of runs of scores merged chunk by chunk (ScoreMoments), and how they become Stats.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/score_moments.hpp"

#include <string>

namespace attnlab {

// The statistics from two runs of score moments: `all` over every n × m score, `visible` over the
// unblocked cells only. Logits are the visible scores divided by s·T (`divisor`, > 0), so their
// mean, std, min and max follow from the visible scores' moments without a second pass (and stay
// finite where the logits' squares would overflow, T = 1e-300).
Stats stats_from_moments(const ScoreMoments& all, const ScoreMoments& visible, double divisor);

// The statistics of dense scores (n × m) under `mask`: every cell, and the visible ones.
Stats dense_score_stats(const Matrix& scores, const Mask& mask, double divisor);

// The count, mean and squared deviations of all n × m scores S = Q Kᵀ (Q: n × d, K: m × d) from Q
// and K alone, in O((n + m)·d²) and no product of the two, exact but for double rounding: with
// q̄, k̄ the mean rows and q̃ = q − q̄, k̃ = k − k̄,
//   mean             = q̄ · k̄
//   Σ (S − mean)²   = m · k̄ᵀ (Q̃ᵀQ̃) k̄ + n · q̄ᵀ (K̃ᵀK̃) q̄ + ⟨Q̃ᵀQ̃, K̃ᵀK̃⟩_F
// (S_ij − mean = q̄·k̃_j + q̃_i·k̄ + q̃_i·k̃_j, and every cross term sums to zero because Σ q̃ = Σ k̃
// = 0). Every term is non-negative, so nothing cancels. min and max are left unknown (±∞).
ScoreMoments all_score_moments(const Matrix& Q, const Matrix& K);

// Where a streamed result's statistics of every score (count, mean, std) come from:
enum class AllScores {
  Visible,  // the mask blocks nothing: every cell is a visible one
  Gram,     // all_score_moments: the key tiles the mask blocks are never multiplied
  Tiles,    // the blocked tiles are multiplied for them (scores that may overflow float32, where
            // the statistics must see each ±∞ as the dense path does, or a large d_k, where the
            // Gram matrices cost more than the blocked products)
};

// The source every streaming path (the CPU's and the GPU's) takes for p: the Gram matrices where
// they cost less than the blocked products ((n + m)·d_k²/2 multiply-adds in double, about four
// times a float one's cost, against blocked·d_k); the tiles where the mask blocks nothing, where
// scores may overflow float32 (`scores_may_overflow`: ScoreOverflowGuard::active), and where rows
// go the exact path anyway (other normalizers; c, 1/(s·T) as a float, 0), which have whole rows of
// scores.
AllScores all_scores_source(const Problem& p, float c, bool scores_may_overflow);

// The statistics of a streamed result: the scores' count, mean and std from `all` (every cell),
// their min and max from `visible` (MomentStats::range_count: the streaming paths multiply only
// the unblocked cells), the logits' from `visible`.
Stats streamed_stats(const ScoreMoments& all, const ScoreMoments& visible, double divisor);

// The sentence that says a result's scores' min and max cover only its unblocked cells (a
// streamed result under a mask), or "" when they cover every cell.
std::string score_range_note(const Result& r);

}  // namespace attnlab
