// Overflow notes: finds the ±∞ cells of a result and says, in one sentence per kind, why they are
// there and what they did to the weights.
#include "engine/attention/overflow_notes.hpp"

#include "engine/text/text_format.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

constexpr int kKinds = 8;

std::string row_list(const std::vector<Eigen::Index>& rows, const std::vector<std::string>& labels) {
  auto one = [&](Eigen::Index i) {
    std::string s = std::to_string(i + 1);
    if (static_cast<size_t>(i) < labels.size()) s += " (" + labels[static_cast<size_t>(i)] + ")";
    return s;
  };
  std::string out = rows.size() == 1 ? "row " : "rows ";
  const size_t shown = std::min<size_t>(rows.size(), 3);
  for (size_t k = 0; k < shown; ++k) {
    if (k) out += k + 1 == shown && rows.size() == shown ? " and " : ", ";
    out += one(rows[k]);
  }
  if (rows.size() > shown) out += " and " + std::to_string(rows.size() - shown) + " more";
  return out;
}

std::string sentence(RowOverflow kind, const std::string& where, double effective_temperature) {
  const std::string divisor = significant(effective_temperature, 4);
  switch (kind) {
    case RowOverflow::ScoresAllNegInf:
      return "scores overflow float32 at " + where +
             ": every visible score is below -3.4e38 and shows as -inf, so their order is lost and the row's weight "
             "is split evenly among its visible keys (the row is not masked); scale Q or K down";
    case RowOverflow::ScoresPosInf:
      return "scores overflow float32 at " + where +
             ": a score above 3.4e38 shows as +inf, and the keys scored +inf share the row's weight equally; scale Q "
             "or K down";
    case RowOverflow::ScoresNegInf:
      return "scores overflow float32 at " + where + ": a score below -3.4e38 shows as -inf and its key gets weight 0";
    case RowOverflow::ScoresBlocked:
      return "scores overflow float32 at " + where +
             " in blocked cells only (shown as +inf or -inf): the mask hides them, so the weights do not use them";
    case RowOverflow::Logits:
      return std::string("logits overflow float32 at ") + where + ": scores / " + divisor +
             " (s*T) pass 3.4e38 and show as +inf or -inf, but the weights come from the same division in double "
             "precision and are exact";
    case RowOverflow::Output:
      return "output overflows float32 at " + where +
             ": a weighted sum of values near 3.4e38 passes the float32 range; scale V down";
    case RowOverflow::ScoresRecomputed:
      return "scores were computed in double precision at " + where +
             ": products of Q and K entries come near float32's limit of 3.4e38, where a float32 sum gives +inf or "
             "NaN (inf - inf) depending on the order it adds in; the exact scores are used instead, the same on "
             "every machine, and one beyond 3.4e38 is +inf or -inf (its keys share the row, or get weight 0); "
             "scale Q or K down";
    case RowOverflow::None: break;
  }
  return {};
}

}  // namespace

const char* row_overflow_label(RowOverflow o) {
  switch (o) {
    case RowOverflow::None: return "";
    case RowOverflow::ScoresAllNegInf: return "scores -inf: even split";
    case RowOverflow::ScoresPosInf: return "scores +inf";
    case RowOverflow::ScoresNegInf: return "scores -inf";
    case RowOverflow::ScoresBlocked: return "blocked scores inf";
    case RowOverflow::Logits: return "logits overflow";
    case RowOverflow::Output: return "output overflow";
    case RowOverflow::ScoresRecomputed: return "scores recomputed";
  }
  return "";
}

OverflowNotes overflow_notes(const Result& r, const BlockGrid& blocked, const std::vector<std::string>& row_labels) {
  OverflowNotes notes;
  notes.rows.assign(static_cast<size_t>(r.n), RowOverflow::None);
  std::array<std::vector<Eigen::Index>, kKinds> found;
  const bool have_grid = blocked.rows() == r.n && blocked.cols() == r.m;
  const bool have_stages = r.dense && r.scores.rows() == r.n && r.scores.cols() == r.m;
  // `compute` keeps no logits (it prints them from the scores): derive them the same way.
  const bool have_logits = r.logits.rows() == r.n && r.logits.cols() == r.m;
  constexpr float inf = std::numeric_limits<float>::infinity();
  for (Eigen::Index i = 0; i < r.n; ++i) {
    std::array<bool, kKinds> has{};
    if (have_stages) {
      Eigen::Index visible = 0, neg = 0;
      for (Eigen::Index j = 0; j < r.m; ++j) {
        const float s = r.scores(i, j);
        const bool hidden = have_grid && blocked(i, j);
        if (hidden) {
          has[static_cast<size_t>(RowOverflow::ScoresBlocked)] |= std::isinf(s);
          continue;
        }
        ++visible;
        if (s == inf) has[static_cast<size_t>(RowOverflow::ScoresPosInf)] = true;
        if (s == -inf) ++neg;
        const float logit = have_logits ? r.logits(i, j) : logit_of(s, false, r.effective_temperature);
        if (std::isfinite(s) && std::isinf(logit)) has[static_cast<size_t>(RowOverflow::Logits)] = true;
      }
      if (visible > 0 && neg == visible) has[static_cast<size_t>(RowOverflow::ScoresAllNegInf)] = true;
      else if (neg > 0) has[static_cast<size_t>(RowOverflow::ScoresNegInf)] = true;
      // Overflows in blocked cells matter only when nothing else explains the row's ∞.
      if (has[1] || has[2] || has[3]) has[static_cast<size_t>(RowOverflow::ScoresBlocked)] = false;
    }
    if (i < r.output.rows() && !r.output.row(i).allFinite()) has[static_cast<size_t>(RowOverflow::Output)] = true;
    // Scores computed in double: worth a sentence where the ±∞ notes do not already explain the row.
    if (static_cast<size_t>(i) < r.rows.size() && r.rows[static_cast<size_t>(i)].scores_recomputed &&
        !(has[1] || has[2] || has[3] || has[4])) {
      has[static_cast<size_t>(RowOverflow::ScoresRecomputed)] = true;
    }
    for (int k = 1; k < kKinds; ++k) {
      if (!has[static_cast<size_t>(k)]) continue;
      found[static_cast<size_t>(k)].push_back(i);
      if (notes.rows[static_cast<size_t>(i)] == RowOverflow::None) notes.rows[static_cast<size_t>(i)] = static_cast<RowOverflow>(k);
    }
  }
  for (int k = 1; k < kKinds; ++k) {
    if (found[static_cast<size_t>(k)].empty()) continue;
    notes.sentences.push_back(sentence(static_cast<RowOverflow>(k), row_list(found[static_cast<size_t>(k)], row_labels),
                                       r.effective_temperature));
  }
  return notes;
}

}  // namespace attnlab
