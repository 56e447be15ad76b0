// The head-kind detector: four pattern scores read off TransformerLens-style detection patterns,
// a spread score, and the rule that picks a kind (docs/MODELS.md, "Head kinds").
#include "engine/model/head_kinds.hpp"

#include "engine/cpu/log_float.hpp"
#include "engine/platform/target_clones.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace attnlab::model {

std::string_view head_kind_name(HeadKind k) {
  switch (k) {
    case HeadKind::PreviousToken: return "previous-token";
    case HeadKind::Induction: return "induction";
    case HeadKind::FirstToken: return "first-token";
    case HeadKind::Self: return "self";
    case HeadKind::Broad: return "broad";
    case HeadKind::Mixed: return "mixed";
  }
  return "mixed";
}

TokenRepeats token_repeats(const std::vector<int>& ids) {
  TokenRepeats r;
  const int n = static_cast<int>(ids.size());
  r.induction_keys.resize(ids.size());
  for (int i = 1; i < n; ++i) {
    for (int j = 0; j < i; ++j) {
      if (ids[static_cast<std::size_t>(j)] == ids[static_cast<std::size_t>(i)]) r.induction_keys[static_cast<std::size_t>(i)].push_back(j + 1);
    }
  }
  return r;
}

std::vector<std::pair<int, int>> pattern_cells(HeadKind pattern, const TokenRepeats& repeats) {
  std::vector<std::pair<int, int>> cells;
  const int n = static_cast<int>(repeats.induction_keys.size());
  for (int i = 0; i < n; ++i) {
    switch (pattern) {
      case HeadKind::PreviousToken:
        if (i >= 1) cells.emplace_back(i, i - 1);
        break;
      case HeadKind::FirstToken: cells.emplace_back(i, 0); break;
      case HeadKind::Self:
        if (i >= 1) cells.emplace_back(i, i);
        break;
      case HeadKind::Induction:
        for (int key : repeats.induction_keys[static_cast<std::size_t>(i)]) cells.emplace_back(i, key);
        break;
      case HeadKind::Broad:
      case HeadKind::Mixed: return cells;
    }
  }
  return cells;
}

namespace {

// −Σ a ln a over a row's weights, compiled for AVX-512 and AVX2 besides the baseline (GCC's
// target_clones): a logarithm per kept weight, 75 M for GPT-2 small's 144 heads at 1024 tokens,
// through libm's scalar log took a fifth of that process's CPU time. Zeros add nothing;
// a subnormal weight (< 1.2e-38) is taken at the smallest normal's log, an error below 1e-36.
ATTNLAB_TARGET_CLONES
double entropy(const float* a, std::int64_t count) {
  // The clamp to the smallest normal is an integer max on the bits (weights are ≥ 0, whose bits
  // order as their values): a float select would not vectorize under -ftrapping-math.
  const auto term = [](float w) {
    constexpr auto kMinBits = std::bit_cast<std::int32_t>(std::numeric_limits<float>::min());
    return w * kernels::log_normal(std::bit_cast<float>(std::max(std::bit_cast<std::int32_t>(w), kMinBits)));
  };
  // Sixteen running sums in double, one per lane (a reduction GCC vectorizes without reordering).
  constexpr int kLanes = 16;
  double lanes[kLanes] = {};
  std::int64_t j = 0;
  for (; j + kLanes <= count; j += kLanes) {
    for (int k = 0; k < kLanes; ++k) lanes[k] += static_cast<double>(term(a[j + k]));
  }
  double h = 0;
  for (; j < count; ++j) h += static_cast<double>(term(a[j]));
  for (double lane : lanes) h += lane;
  return -h;
}

const float* row_start(const Matrix& A, std::int64_t i) { return A.data() + i * A.cols(); }
const float* row_start(const CausalWeights& A, std::int64_t i) { return A.row(i); }

// The mean over the rows the pattern covers of the row's weight on its cells (TransformerLens's
// "mul" score restricted to those rows), and how many rows that was.
template <class Weights>
std::pair<double, int> pattern_score(const Weights& A, const std::vector<std::pair<int, int>>& cells, std::int64_t n) {
  double sum = 0;
  int rows = 0, last = -1;
  for (const auto& [i, j] : cells) {
    if (i >= n || j >= A.cols()) continue;
    sum += A(i, j);
    if (i != last) ++rows, last = i;
  }
  return {rows ? sum / rows : 0.0, rows};
}

// Even causal attention over n keys, read as pattern_score reads weights: row i gives each of its
// i + 1 keys 1 / (i + 1).
struct EvenCausal {
  std::int64_t n;
  double operator()(std::int64_t i, std::int64_t j) const { return j <= i ? 1.0 / static_cast<double>(i + 1) : 0.0; }
  std::int64_t cols() const { return n; }
};

// score_head for either form of the weights: both read cell (i, j) as A(i, j).
template <class Weights>
HeadScores scores(const Weights& A, const TokenRepeats& repeats) {
  HeadScores s;
  const std::int64_t n = std::min<std::int64_t>(A.rows(), static_cast<std::int64_t>(repeats.induction_keys.size()));
  if (n < 2 || A.cols() < n) return s;
  s.previous_token = pattern_score(A, pattern_cells(HeadKind::PreviousToken, repeats), n).first;
  s.first_token = pattern_score(A, pattern_cells(HeadKind::FirstToken, repeats), n).first;
  s.self = pattern_score(A, pattern_cells(HeadKind::Self, repeats), n).first;
  std::tie(s.induction, s.induction_rows) = pattern_score(A, pattern_cells(HeadKind::Induction, repeats), n);
  const EvenCausal even{n};
  s.chance.previous_token = pattern_score(even, pattern_cells(HeadKind::PreviousToken, repeats), n).first;
  s.chance.first_token = pattern_score(even, pattern_cells(HeadKind::FirstToken, repeats), n).first;
  s.chance.self = pattern_score(even, pattern_cells(HeadKind::Self, repeats), n).first;
  s.chance.induction = pattern_score(even, pattern_cells(HeadKind::Induction, repeats), n).first;
  // Row 0 sees only itself, so its spread says nothing: the mean starts at row 1.
  for (std::int64_t i = 1; i < n; ++i) s.broad += entropy(row_start(A, i), i + 1) / std::log(static_cast<double>(i + 1));
  s.broad /= static_cast<double>(n - 1);
  return s;
}

HeadVerdict verdict(const HeadScores& s) {
  HeadVerdict v;
  v.scores = s;
  // Induction first: on repeated text an induction head's target is often also a recent key,
  // and it is the rarer, more telling pattern. Ties keep this order.
  struct Candidate {
    HeadKind kind;
    double score, chance;
  };
  const Candidate patterns[] = {
      {HeadKind::Induction, s.induction_rows > 0 ? s.induction : 0.0, s.chance.induction},
      {HeadKind::PreviousToken, s.previous_token, s.chance.previous_token},
      {HeadKind::FirstToken, s.first_token, s.chance.first_token},
      {HeadKind::Self, s.self, s.chance.self},
  };
  // The best is the one furthest above its chance: a first-token score of 0.5 where even weights
  // give 0.4 says less than a previous-token 0.45 where they give 0.05.
  const auto best = *std::max_element(std::begin(patterns), std::end(patterns), [](const Candidate& a, const Candidate& b) {
    return above_chance(a.score, a.chance) < above_chance(b.score, b.chance);
  });
  v.pattern = best.kind;
  if (above_chance(best.score, best.chance) >= kPatternThreshold) {
    v.kind = best.kind;
    v.score = best.score;
  } else if (s.broad >= kBroadThreshold) {
    v.kind = HeadKind::Broad;
    v.score = s.broad;
  } else {
    v.kind = HeadKind::Mixed;
    v.score = best.score;
  }
  return v;
}

}  // namespace

double above_chance(double score, double chance) { return chance >= 1.0 ? 0.0 : std::max(0.0, (score - chance) / (1.0 - chance)); }

HeadScores score_head(const Matrix& A, const TokenRepeats& repeats) { return scores(A, repeats); }
HeadVerdict classify_head(const CausalWeights& A, const TokenRepeats& repeats) { return verdict(scores(A, repeats)); }
HeadVerdict classify_head(const Matrix& A, const TokenRepeats& repeats) { return verdict(scores(A, repeats)); }
HeadVerdict classify_head(const CausalWeights& A, const std::vector<int>& ids) { return classify_head(A, token_repeats(ids)); }
HeadVerdict classify_head(const Matrix& A, const std::vector<int>& ids) { return classify_head(A, token_repeats(ids)); }

}  // namespace attnlab::model
