// What kind of head an attention pattern shows (docs/MODELS.md, "Head kinds"): a small detector
// in the spirit of TransformerLens's head detector, scoring each head on the text it was given.
#pragma once

#include "engine/attention/matrix.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

enum class HeadKind { PreviousToken, Induction, FirstToken, Self, Broad, Mixed };

// "previous-token", "induction", "first-token", "self", "broad", "mixed".
std::string_view head_kind_name(HeadKind k);

struct HeadScores {
  double previous_token = 0;  // mean weight on key i−1, over rows i ≥ 1
  double first_token = 0;     // mean weight on key 0, over rows i ≥ 1
  double self = 0;            // mean weight on key i, over rows i ≥ 1
  double induction = 0;       // mean weight on the key after the token's earlier occurrences
  int induction_rows = 0;     // rows with an earlier occurrence to score (0: not measurable)
  double broad = 0;           // mean entropy over rows i ≥ 1, as a fraction of ln(i + 1)
};

struct HeadVerdict {
  HeadKind kind = HeadKind::Mixed;
  double score = 0;  // the score that decided the kind (for mixed: the best pattern score)
  HeadScores scores;
};

// A pattern score at or above this names the head's kind.
inline constexpr double kPatternThreshold = 0.4;
// With no pattern that strong, a mean normalized entropy at or above this makes it broad.
inline constexpr double kBroadThreshold = 0.75;

// weights: n × n causal attention of one head; ids: the n tokens (for induction).
HeadScores score_head(const Matrix& weights, const std::vector<int>& ids);
HeadVerdict classify_head(const Matrix& weights, const std::vector<int>& ids);

}  // namespace attnlab::model
