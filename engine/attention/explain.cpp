// The by-hand arithmetic of a cell: dot products term by term, the division, each exp, the sum.
// Both forms (the Explain panel's and the worked example's) are built from the same pieces below.
#include "engine/attention/explain.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

constexpr Eigen::Index kMaxTerms = 8;  // longer sums show their first terms, "…" and the last

std::string paren(double v) {
  const std::string s = hand_number(v);
  return v < 0 ? "(" + s + ")" : s;
}

// True when term t of a d-term sum is left out; the first left-out term prints the ellipsis.
bool elided(Eigen::Index t, Eigen::Index d) { return d > kMaxTerms && t >= kMaxTerms - 2 && t < d - 1; }

// q_i · k_j written out: "1·1 + 0·0".
std::string dot_terms(const Matrix& A, Eigen::Index i, const Matrix& B, Eigen::Index j, const Glyphs& g) {
  std::string s;
  const Eigen::Index d = A.cols();
  for (Eigen::Index t = 0; t < d; ++t) {
    if (elided(t, d)) {
      if (t == kMaxTerms - 2) s += std::string(" + ") + g.ellipsis + " (" + std::to_string(d - kMaxTerms + 1) + " more)";
      continue;
    }
    if (t) s += " + ";
    s += paren(A(i, t)) + g.dot + paren(B(j, t));
  }
  return s;
}

// Row i's exps as one works them by hand. Past e^30 the numbers are unreadable (and e^89 overflows
// float32), so, as the engine does, every logit is first shifted by the row's max.
struct RowExps {
  bool all_blocked = false;  // every logit is −∞: the weights are all 0
  bool shifted = false;
  double max = 0;            // the row's largest logit
  std::vector<double> exps;  // e^(logit − shift); 0 for blocked keys
  double sum = 0;
};

RowExps row_exps(const Result& r, Eigen::Index i) {
  RowExps e;
  e.max = -std::numeric_limits<double>::infinity();
  for (Eigen::Index c = 0; c < r.m; ++c) e.max = std::max(e.max, static_cast<double>(r.logits(i, c)));
  e.all_blocked = !std::isfinite(e.max);
  if (e.all_blocked) return e;
  e.shifted = e.max > 30;
  for (Eigen::Index c = 0; c < r.m; ++c) {
    const double l = r.logits(i, c);
    e.exps.push_back(std::isfinite(l) ? std::exp(l - (e.shifted ? e.max : 0.0)) : 0.0);
    e.sum += e.exps.back();
  }
  return e;
}

std::string label(const std::vector<std::string>& tokens, Eigen::Index i, const char* fallback) {
  return i < static_cast<Eigen::Index>(tokens.size()) ? tokens[static_cast<size_t>(i)] : fallback + std::to_string(i + 1);
}

std::string one_based(Eigen::Index i) { return std::to_string(i + 1); }

// ---- The Explain panel's steps ---------------------------------------------------------------

struct CellSteps {
  const Problem& p;
  const Result& r;
  Eigen::Index i, j;
  std::string qi, kj;  // the two tokens
  const Glyphs& g;

  bool blocked(Stage stage) const {
    return stage != Stage::Output && stage != Stage::Scores && p.options.mask.is_blocked(i, j);
  }
  // With rotary positions on, the scores are products of the rotated rows the result kept.
  bool rotated() const { return p.options.rope && r.rotated_q.rows() == r.n && r.rotated_k.rows() == r.m; }
  std::string score() const {
    if (rotated()) {
      return "score  (rotated q_" + one_based(i) + ")" + g.dot + "(rotated k_" + one_based(j) + ") = " +
             dot_terms(r.rotated_q, i, r.rotated_k, j, g) + " = " + hand_number(r.scores(i, j));
    }
    return "score  q_" + one_based(i) + g.dot + "k_" + one_based(j) + " = " + dot_terms(p.Q, i, p.K, j, g) + " = " +
           hand_number(r.scores(i, j));
  }
  // RoPE's two steps before the score: where the two rows stand and what the rotation made of them.
  void rotation(std::vector<std::string>& steps) const {
    if (!rotated()) return;
    const RopeSettings& rope = *p.options.rope;
    const std::int64_t pi = rope_positions(rope.query_positions, r.n)[static_cast<size_t>(i)];
    const std::int64_t pj = rope_positions(rope.key_positions, r.m)[static_cast<size_t>(j)];
    const std::vector<double> f = rope_frequencies(rope.theta, rope.scaling, r.d_k);
    std::string freqs;
    for (size_t t = 0; t < f.size(); ++t) {
      if (elided(static_cast<Eigen::Index>(t), static_cast<Eigen::Index>(f.size()))) {
        if (static_cast<Eigen::Index>(t) == kMaxTerms - 2) freqs += std::string(", ") + g.ellipsis;
        continue;
      }
      freqs += (t ? ", " : "") + hand_number(f[t]);
    }
    steps.push_back("RoPE  " + qi + " is at position " + std::to_string(pi) + " and " + kj + " at " +
                    std::to_string(pj) + "; each pair of components (t, t + d_k/2) turns by position" + g.dot +
                    "f_t, with f = (" + freqs + "), so the score depends only on the distance " +
                    std::to_string(pi) + " " + g.minus + " " + std::to_string(pj) + " = " + std::to_string(pi - pj));
    steps.push_back("rotated  q_" + one_based(i) + " " + g.arrow + " " + row_terms(r.rotated_q, i) + ",  k_" +
                    one_based(j) + " " + g.arrow + " " + row_terms(r.rotated_k, j));
  }
  std::string row_terms(const Matrix& A, Eigen::Index row) const {
    std::string s = "(";
    for (Eigen::Index t = 0; t < A.cols(); ++t) {
      if (elided(t, A.cols())) {
        if (t == kMaxTerms - 2) s += std::string(", ") + g.ellipsis;
        continue;
      }
      s += (t ? ", " : "") + hand_number(A(row, t));
    }
    return s + ")";
  }
  std::string logit() const {
    const std::string divisor = std::string("(") +
                                (p.options.scale ? std::string(g.sqrt) + std::to_string(r.d_k) : "1") + g.dot +
                                hand_number(p.options.temperature) + ")";
    return std::string("logit  ") + hand_number(r.scores(i, j)) + " " + g.divide + " " + divisor + " = " +
           hand_number(r.scores(i, j)) + " " + g.divide + " " + hand_number(r.effective_temperature) + " = " +
           hand_number(r.scores(i, j) / r.effective_temperature);
  }
  std::string mask_blocks() const {
    return std::string("blocked by the ") + std::string(mask_kind_name(p.options.mask.kind)) + " mask: " + kj +
           " is hidden from " + qi + ", so its logit is " + g.minus + g.infinity + " and e^" + g.minus + g.infinity + " = 0";
  }
  void softmax(std::vector<std::string>& steps) const {
    if (r.rows[static_cast<size_t>(i)].fully_masked) {
      steps.push_back("every key is blocked for " + qi + ": the row's weights are all 0 (no NaN)");
      return;
    }
    const RowExps e = row_exps(r, i);
    std::string exps = e.shifted ? "exp of each logit minus the row max " + hand_number(e.max) + ": "
                                 : "exp of each logit of " + qi + "'s row: ";
    for (Eigen::Index t = 0; t < r.m; ++t) {
      // The cell's own key is always shown, even in the elided middle.
      if (elided(t, r.m) && t != j) {
        if (t == kMaxTerms - 2) exps += std::string(g.ellipsis) + ",  ";
        continue;
      }
      const double l = r.logits(i, t);
      exps += "e^" + hand_number(e.shifted ? l - e.max : l) + " = " + hand_number(e.exps[static_cast<size_t>(t)]);
      if (t + 1 < r.m) exps += ",  ";
    }
    steps.push_back(exps);
    steps.push_back("sum  " + hand_number(e.sum));
    const double mine = e.exps[static_cast<size_t>(j)];
    steps.push_back(std::string("weight  ") + hand_number(mine) + " " + g.divide + " " + hand_number(e.sum) + " = " +
                    hand_number(mine / e.sum));
  }
  std::string output_sum() const {
    std::string terms = "o = " + std::string(g.sum) + "_j a_" + one_based(i) + "j" + g.dot + "v_j" + one_based(j) + " = ";
    for (Eigen::Index t = 0; t < r.m; ++t) {
      if (elided(t, r.m)) {
        if (t == kMaxTerms - 2) terms += std::string(" + ") + g.ellipsis;
        continue;
      }
      if (t) terms += " + ";
      terms += hand_number(r.weights(i, t)) + g.dot + paren(p.V(t, j));
    }
    return terms + " = " + hand_number(r.output(i, j));
  }
  std::string output_rows() const {
    std::string rows = "as whole rows: o_" + one_based(i) + " = ";
    for (Eigen::Index t = 0; t < r.m; ++t) {
      if (t) rows += " + ";
      rows += hand_number(r.weights(i, t)) + g.dot + "(";
      for (Eigen::Index c = 0; c < r.d_v; ++c) rows += (c ? ", " : "") + hand_number(p.V(t, c));
      rows += ")";
    }
    rows += " = (";
    for (Eigen::Index c = 0; c < r.d_v; ++c) rows += (c ? ", " : "") + hand_number(r.output(i, c));
    return rows + ")";
  }
};

}  // namespace

Explanation explain_cell(const Problem& p, const Result& r, const CellRef& cell, const std::vector<std::string>& qt,
                         const std::vector<std::string>& kt, const Glyphs& g) {
  const Eigen::Index i = cell.row, j = cell.col;
  const Eigen::Index cols = cell.stage == Stage::Output ? r.d_v : r.m;
  if (!r.dense || cell.stage == Stage::Pipeline || i < 0 || i >= r.n || j < 0 || j >= cols) {
    throw InputError("explain: the cell lies outside the " + std::string(stage_name(cell.stage)) + " matrix");
  }
  const CellSteps at{p, r, i, j, label(qt, i, "q"), label(kt, j, "k"), g};
  const std::string idx = "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
  Explanation e;
  switch (cell.stage) {
    case Stage::Scores:
      e.heading = "scores" + idx + ": how well " + at.qi + "'s query matches " + at.kj + "'s key";
      at.rotation(e.steps);
      e.steps.push_back(at.score());
      e.value = r.scores(i, j);
      break;
    case Stage::Logits:
      e.heading = "logits" + idx + ": the score divided by the effective temperature s" + g.dot + "T";
      at.rotation(e.steps);
      e.steps.push_back(at.score());
      e.steps.push_back(at.blocked(cell.stage) ? at.mask_blocks() : at.logit());
      e.value = r.logits(i, j);
      break;
    case Stage::Weights:
    case Stage::Saturation: {
      const bool weights = cell.stage == Stage::Weights;
      e.heading = std::string(weights ? "weights" : "saturation") + idx + ": how much " + at.qi + " attends to " + at.kj;
      at.rotation(e.steps);
      e.steps.push_back(at.score());
      e.steps.push_back(at.blocked(cell.stage) ? at.mask_blocks() : at.logit());
      if (p.options.normalizer == Normalizer::Softmax) {
        at.softmax(e.steps);
      } else {
        e.steps.push_back(std::string(normalizer_name(p.options.normalizer)) + " of row " + one_based(i) + " gives " +
                          hand_number(r.weights(i, j)));
      }
      if (weights) {
        e.value = r.weights(i, j);
      } else {
        const double a = r.weights(i, j);
        e.steps.push_back("saturation  a(1" + std::string(g.minus) + "a) = " + hand_number(a) + g.dot + "(1 " + g.minus +
                          " " + hand_number(a) + ") = " + hand_number(a * (1 - a)) + "   (largest, 0.25, at a = 0.5)");
        e.value = r.saturation(i, j);
      }
      break;
    }
    case Stage::Output:
      e.heading = "output" + idx + ": " + at.qi + "'s output, component " + one_based(j) +
                  ", a weighted sum of the value rows";
      e.steps.push_back(at.output_sum());
      if (r.d_v <= 4 && r.m <= kMaxTerms) e.steps.push_back(at.output_rows());
      e.value = r.output(i, j);
      break;
    case Stage::Pipeline: break;  // refused above: a figure, not a cell
  }
  return e;
}

// ---- The worked example's lines --------------------------------------------------------------

std::vector<std::string> explain_weight(const Problem& p, const Result& r, Eigen::Index i, Eigen::Index j) {
  if (i < 0 || i >= r.n || j < 0 || j >= r.m) throw InputError("explain: cell outside the weights matrix");
  const Glyphs g;
  const std::string cell = "[" + one_based(i) + "][" + one_based(j) + "]";
  std::vector<std::string> lines;
  // With rotary positions on, the product of the rotated rows the scores were made of.
  const bool rotated = p.options.rope && r.rotated_q.rows() == r.n && r.rotated_k.rows() == r.m;
  lines.push_back("scores" + cell + " = " + (rotated ? "(rotated q" + one_based(i) + ") · (rotated k" + one_based(j) + ")"
                                                     : "q" + one_based(i) + " · k" + one_based(j)) +
                  " = " + dot_terms(rotated ? r.rotated_q : p.Q, i, rotated ? r.rotated_k : p.K, j, g) + " = " +
                  hand_number(r.scores(i, j)));
  // "1 / √2 = 1 / 1.4142", as the course texts write it; with a temperature, "1 / (√2 · 0.5) = 1 / 0.7071".
  const std::string s = hand_number(r.scores(i, j)), dk = std::to_string(r.d_k);
  const double T = p.options.temperature;
  std::string div;
  if (p.options.scale && T == 1) div = "√" + dk + " = " + s + " / " + hand_number(r.effective_temperature);
  else if (p.options.scale) div = "(√" + dk + " · " + hand_number(T) + ") = " + s + " / " + hand_number(r.effective_temperature);
  else if (T != 1) div = "T = " + s + " / " + hand_number(T);
  else div = "1 (no scaling)";
  if (p.options.mask.is_blocked(i, j)) {
    lines.push_back("logits" + cell + " = −∞: the mask blocks key " + one_based(j) + " for query " + one_based(i));
  } else {
    lines.push_back("logits" + cell + " = " + s + " / " + div + " = " + hand_number(r.logits(i, j)));
  }
  if (p.options.normalizer != Normalizer::Softmax) {
    lines.push_back(std::string(normalizer_name(p.options.normalizer)) + " of row " + one_based(i) + " gives weights" + cell +
                    " = " + hand_number(r.weights(i, j)));
    return lines;
  }
  const RowExps e = row_exps(r, i);
  if (e.all_blocked) {
    lines.push_back("every key of row " + one_based(i) + " is blocked: the weights are all 0");
    return lines;
  }
  std::string exps = e.shifted ? "exp(x − " + hand_number(e.max) + ") of row " + one_based(i) + ": ("
                               : "exp of row " + one_based(i) + ": (";
  for (size_t c = 0; c < e.exps.size(); ++c) exps += (c ? ", " : "") + hand_number(e.exps[c]);
  lines.push_back(exps + "), sum = " + hand_number(e.sum));
  const double mine = e.exps[static_cast<size_t>(j)];
  lines.push_back("weights" + cell + " = " + hand_number(mine) + " / " + hand_number(e.sum) + " = " + hand_number(mine / e.sum));
  return lines;
}

std::vector<std::string> explain_output(const Problem& p, const Result& r, Eigen::Index i) {
  if (i < 0 || i >= r.n) throw InputError("explain: row outside the output matrix");
  std::string sum = "output[" + one_based(i) + "] = ";
  for (Eigen::Index j = 0; j < r.m; ++j) {
    sum += (j ? " + " : "") + hand_number(r.weights(i, j)) + "·(";
    for (Eigen::Index c = 0; c < p.V.cols(); ++c) sum += (c ? ", " : "") + hand_number(p.V(j, c));
    sum += ")";
  }
  sum += " = (";
  for (Eigen::Index c = 0; c < r.d_v; ++c) sum += (c ? ", " : "") + hand_number(r.output(i, c));
  return {sum + ")"};
}

}  // namespace attnlab
