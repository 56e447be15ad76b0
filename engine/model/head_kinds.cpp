// The head-kind detector: four pattern scores, a spread score, and the rule that picks a kind
// (docs/MODELS.md, "Head kinds").
#include "engine/model/head_kinds.hpp"

#include <algorithm>
#include <cmath>

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

HeadScores score_head(const Matrix& A, const std::vector<int>& ids) {
  HeadScores s;
  const Eigen::Index n = std::min<Eigen::Index>(A.rows(), static_cast<Eigen::Index>(ids.size()));
  if (n < 2 || A.cols() < n) return s;
  // Row 0 sees only itself, so it says nothing about any pattern: every mean starts at row 1.
  for (Eigen::Index i = 1; i < n; ++i) {
    s.previous_token += A(i, i - 1);
    s.first_token += A(i, 0);
    s.self += A(i, i);
    double h = 0;
    for (Eigen::Index j = 0; j <= i; ++j) {
      const double a = A(i, j);
      if (a > 0) h -= a * std::log(a);
    }
    s.broad += h / std::log(static_cast<double>(i + 1));
    // Induction: the token at i appeared before at some j < i − 1; a head that copies what came
    // next attends to j + 1. Those keys' weights are summed (several earlier occurrences share).
    double target = 0;
    bool any = false;
    for (Eigen::Index j = 0; j + 1 < i; ++j) {
      if (ids[static_cast<std::size_t>(j)] == ids[static_cast<std::size_t>(i)]) {
        target += A(i, j + 1);
        any = true;
      }
    }
    if (any) {
      s.induction += target;
      ++s.induction_rows;
    }
  }
  const double rows = static_cast<double>(n - 1);
  s.previous_token /= rows;
  s.first_token /= rows;
  s.self /= rows;
  s.broad /= rows;
  if (s.induction_rows > 0) s.induction /= s.induction_rows;
  return s;
}

HeadVerdict classify_head(const Matrix& A, const std::vector<int>& ids) {
  HeadVerdict v;
  v.scores = score_head(A, ids);
  const HeadScores& s = v.scores;
  // Induction first: on repeated text an induction head's target is often also a recent key,
  // and it is the rarer, more telling pattern. Ties keep this order.
  const std::pair<HeadKind, double> patterns[] = {
      {HeadKind::Induction, s.induction_rows > 0 ? s.induction : 0.0},
      {HeadKind::PreviousToken, s.previous_token},
      {HeadKind::FirstToken, s.first_token},
      {HeadKind::Self, s.self},
  };
  const auto best = *std::max_element(std::begin(patterns), std::end(patterns),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
  if (best.second >= kPatternThreshold) {
    v.kind = best.first;
    v.score = best.second;
  } else if (s.broad >= kBroadThreshold) {
    v.kind = HeadKind::Broad;
    v.score = s.broad;
  } else {
    v.kind = HeadKind::Mixed;
    v.score = best.second;
  }
  return v;
}

}  // namespace attnlab::model
