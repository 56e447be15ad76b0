// The global statistics of a result (Result::stats: mean, std, min and max of the scores over all
// n × m cells and of the logits over the visible ones), defined once for every backend and path:
// moments of runs of scores merged chunk by chunk (ScoreMoments), and how they become Stats.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/score_moments.hpp"

namespace attnlab {

// The statistics from two runs of score moments: `all` over every n × m score, `visible` over the
// unblocked cells only. Logits are the visible scores divided by s·T (`divisor`, > 0), so their
// mean, std, min and max follow from the visible scores' moments without a second pass (and stay
// finite where the logits' squares would overflow, T = 1e-300).
Stats stats_from_moments(const ScoreMoments& all, const ScoreMoments& visible, double divisor);

// The statistics of dense scores (n × m) under `mask`: every cell, and the visible ones.
Stats dense_score_stats(const Matrix& scores, const Mask& mask, double divisor);

}  // namespace attnlab
