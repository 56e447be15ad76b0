// What kind of head an attention pattern shows (docs/MODELS.md, "Head kinds"): TransformerLens's
// head detector (a detection pattern of query–key cells; a head's score is its mean weight on the
// pattern's cells over the rows the pattern covers) for the previous-token, first-token, self and
// induction patterns, a spread score, and the rule that names a head by them.
#pragma once

#include "engine/attention/matrix.hpp"
#include "engine/model/causal_weights.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab::model {

enum class HeadKind { PreviousToken, Induction, FirstToken, Self, Broad, Mixed };

// "previous-token", "induction", "first-token", "self", "broad", "mixed".
std::string_view head_kind_name(HeadKind k);

struct HeadScores {
  double previous_token = 0;  // mean weight on key i − 1, over rows i ≥ 1 (the whole sequence)
  double first_token = 0;     // mean weight on key 0, over every row (row 0 included)
  double self = 0;            // mean weight on key i, over rows i ≥ 1
  double induction = 0;       // mean weight on the keys after the token's earlier occurrences, over the repeat
  int induction_rows = 0;     // rows with an earlier occurrence (the repeat; 0: not measurable)
  double broad = 0;           // mean entropy over rows i ≥ 1, as a fraction of ln(i + 1)
  // What each pattern scores on the same text when every row spreads its weight evenly over the keys
  // it sees (1 / (i + 1) each): the level a score means nothing at. On a short text it is large (a
  // 4-token text's previous-token pattern gets 0.36 from even weights), on a long one near 0.
  struct Chance {
    double previous_token = 0, first_token = 0, self = 0, induction = 0;
  } chance;
};

struct HeadVerdict {
  HeadKind kind = HeadKind::Mixed;
  double score = 0;  // the score that decided the kind (for mixed: the best pattern score)
  // The pattern with the best score (previous-token, induction, first-token or self): the kind
  // unless the head is broad or mixed; its cells are the evidence the Model window outlines.
  HeadKind pattern = HeadKind::PreviousToken;
  HeadScores scores;
};

// A pattern names the head's kind when its score is at least this fraction of the way from chance
// (HeadScores::chance) to 1: (score − chance) / (1 − chance) ≥ 0.4. On a long text chance is near 0
// and this is a score of 0.4; on a short one a head must beat even attention by as much (a random
// model's "induction 0.47" on a 4-token repeat, where even weights score 0.29, is no induction head).
inline constexpr double kPatternThreshold = 0.4;
// How far `score` is from `chance` towards 1 (0 at chance or below; the rule above compares it).
double above_chance(double score, double chance);
// With no pattern that strong, a mean normalized entropy at or above this makes it broad.
inline constexpr double kBroadThreshold = 0.75;

// The induction pattern of a text, computed once for all its heads: per row i, the keys j + 1
// for every j < i holding row i's token (TransformerLens's get_induction_head_detection_pattern).
struct TokenRepeats {
  std::vector<std::vector<int>> induction_keys;  // [row]; empty where the token is new
};
TokenRepeats token_repeats(const std::vector<int>& ids);

// The (query, key) cells a pattern's score reads on a text of n tokens: the evidence. Broad and
// mixed have none.
std::vector<std::pair<int, int>> pattern_cells(HeadKind pattern, const TokenRepeats& repeats);

// weights: n × n causal attention of one head, as a forward keeps it or as a full matrix; ids: the
// n tokens (for induction).
HeadScores score_head(const Matrix& weights, const TokenRepeats& repeats);
HeadVerdict classify_head(const CausalWeights& weights, const TokenRepeats& repeats);
HeadVerdict classify_head(const Matrix& weights, const TokenRepeats& repeats);
// The same, finding the repeats of `ids` first.
HeadVerdict classify_head(const CausalWeights& weights, const std::vector<int>& ids);
HeadVerdict classify_head(const Matrix& weights, const std::vector<int>& ids);

}  // namespace attnlab::model
