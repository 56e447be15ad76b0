// The by-hand arithmetic of a cell: dot products term by term, the division, each exp, the sum.
#include "gui/panels/explain_arithmetic.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace attnlab::gui {

namespace {

constexpr Eigen::Index kMaxTerms = 8;  // longer sums are elided in the middle

std::string paren(double v) {
  const std::string s = hand_number(v);
  return v < 0 ? "(" + s + ")" : s;
}

// q_i · k_j written out: "1·1 + 0·0 = 1".
std::string dot_terms(const Matrix& A, Eigen::Index i, const Matrix& B, Eigen::Index j, const Glyphs& g) {
  std::string s;
  const Eigen::Index d = A.cols();
  double sum = 0;
  for (Eigen::Index t = 0; t < d; ++t) sum += static_cast<double>(A(i, t)) * B(j, t);
  for (Eigen::Index t = 0; t < d; ++t) {
    if (d > kMaxTerms && t == kMaxTerms - 2) {
      s += std::string(" + ") + g.ellipsis + " (" + std::to_string(d - kMaxTerms + 1) + " more)";
      t = d - 2;
      continue;
    }
    if (t) s += " + ";
    s += paren(A(i, t)) + g.dot + paren(B(j, t));
  }
  return s + " = " + hand_number(sum);
}

}  // namespace

std::string hand_number(double v) {
  if (!std::isfinite(v)) return v < 0 ? "−∞" : v > 0 ? "∞" : "nan";
  char buf[40];
  if (v == std::round(v) && std::abs(v) < 1e6) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::abs(v) >= 1e4 || std::abs(v) < 1e-3) std::snprintf(buf, sizeof buf, "%.3g", v);
  else std::snprintf(buf, sizeof buf, "%.3f", v);
  std::string s = buf;
  if (s == "-0") s = "0";
  return s;
}

Explanation explain_cell(const Problem& p, const Result& r, const CellRef& cell, const std::vector<std::string>& qt,
                         const std::vector<std::string>& kt, const Glyphs& g) {
  Explanation e;
  const Eigen::Index i = cell.row, j = cell.col;
  const std::string qi = i < static_cast<Eigen::Index>(qt.size()) ? qt[static_cast<size_t>(i)] : "q" + std::to_string(i + 1);
  const std::string kj = j < static_cast<Eigen::Index>(kt.size()) ? kt[static_cast<size_t>(j)] : "k" + std::to_string(j + 1);
  const std::string idx = "[" + std::to_string(i) + "][" + std::to_string(j) + "]";
  const Mask& mask = p.options.mask;
  const double s = r.scale_divisor, T = p.options.temperature, sT = r.effective_temperature;
  const std::string divisor = std::string("(") + (p.options.scale ? std::string(g.sqrt) + std::to_string(r.d_k) : "1") + g.dot +
                              hand_number(T) + ")";
  const bool blocked = cell.stage != Stage::Output && cell.stage != Stage::Scores && mask.is_blocked(i, j);
  const std::string q_name = "q_" + std::to_string(i + 1), k_name = "k_" + std::to_string(j + 1);

  auto score_step = [&]() {
    return "score  " + q_name + g.dot + k_name + " = " + dot_terms(p.Q, i, p.K, j, g);
  };
  auto logit_step = [&]() {
    return std::string("logit  ") + hand_number(r.scores(i, j)) + " " + g.divide + " " + divisor + " = " +
           hand_number(r.scores(i, j)) + " " + g.divide + " " + hand_number(sT) + " = " + hand_number(r.scores(i, j) / sT);
  };
  auto blocked_step = [&]() {
    return std::string("blocked by the ") + std::string(mask_kind_name(mask.kind)) + " mask: " + kj + " is hidden from " + qi +
           ", so its logit is " + g.minus + g.infinity + " and e^" + g.minus + g.infinity + " = 0";
  };
  (void)s;

  switch (cell.stage) {
    case Stage::Scores:
      e.heading = "scores" + idx + ": how well " + qi + "'s query matches " + kj + "'s key";
      e.steps.push_back(score_step());
      e.value = r.scores(i, j);
      break;
    case Stage::Logits:
      e.heading = "logits" + idx + ": the score divided by the effective temperature s" + g.dot + "T";
      e.steps.push_back(score_step());
      if (blocked) e.steps.push_back(blocked_step());
      else e.steps.push_back(logit_step());
      e.value = r.logits(i, j);
      break;
    case Stage::Weights:
    case Stage::Saturation: {
      e.heading = std::string(cell.stage == Stage::Weights ? "weights" : "saturation") + idx + ": how much " + qi +
                  " attends to " + kj;
      e.steps.push_back(score_step());
      if (blocked) {
        e.steps.push_back(blocked_step());
      } else {
        e.steps.push_back(logit_step());
      }
      if (p.options.normalizer == Normalizer::Softmax) {
        if (r.rows[static_cast<size_t>(i)].fully_masked) {
          e.steps.push_back("every key is blocked for " + qi + ": the row's weights are all 0 (no NaN)");
        } else {
          double mx = -INFINITY;
          for (Eigen::Index t = 0; t < r.m; ++t) mx = std::max(mx, static_cast<double>(r.logits(i, t)));
          // Large logits would overflow e^x by hand too: show the stable form the engine uses.
          const bool shift = mx > 30;
          std::string exps = shift ? "exp of each logit minus the row max " + hand_number(mx) + ": "
                                   : "exp of each logit in row " + std::to_string(i + 1) + ": ";
          double sum = 0;
          for (Eigen::Index t = 0; t < r.m; ++t) {
            const double l = r.logits(i, t);
            sum += std::isfinite(l) ? std::exp(l - (shift ? mx : 0.0)) : 0.0;
          }
          Eigen::Index shown = 0;
          for (Eigen::Index t = 0; t < r.m; ++t) {
            if (r.m > kMaxTerms && t >= kMaxTerms - 2 && t != j && t != r.m - 1) {
              if (shown == kMaxTerms - 2) exps += std::string(g.ellipsis) + ", ";
              ++shown;
              continue;
            }
            const double l = r.logits(i, t);
            const double ex = std::isfinite(l) ? std::exp(l - (shift ? mx : 0.0)) : 0.0;
            exps += "e^" + hand_number(shift ? l - mx : l) + " = " + hand_number(ex);
            if (t + 1 < r.m) exps += ",  ";
            ++shown;
          }
          e.steps.push_back(exps);
          e.steps.push_back("sum  " + hand_number(sum));
          const double lj = r.logits(i, j);
          const double exj = std::isfinite(lj) ? std::exp(lj - (shift ? mx : 0.0)) : 0.0;
          e.steps.push_back(std::string("weight  ") + hand_number(exj) + " " + g.divide + " " + hand_number(sum) + " = " +
                            hand_number(exj / sum));
        }
      } else {
        e.steps.push_back(std::string(normalizer_name(p.options.normalizer)) + " of row " + std::to_string(i + 1) +
                          " gives " + hand_number(r.weights(i, j)));
      }
      if (cell.stage == Stage::Saturation) {
        const double a = r.weights(i, j);
        e.steps.push_back("saturation  a(1" + std::string(g.minus) + "a) = " + hand_number(a) + g.dot + "(1 " + g.minus + " " +
                          hand_number(a) + ") = " + hand_number(a * (1 - a)) + "   (largest, 0.25, at a = 0.5)");
        e.value = r.saturation(i, j);
      } else {
        e.value = r.weights(i, j);
      }
      break;
    }
    case Stage::Output: {
      e.heading = "output" + idx + ": " + qi + "'s output, component " + std::to_string(j + 1) +
                  ", a weighted sum of the value rows";
      std::string terms = "o = " + std::string(g.sum) + "_j a_" + std::to_string(i + 1) + "j" + g.dot + "v_j" +
                          std::to_string(j + 1) + " = ";
      double sum = 0;
      for (Eigen::Index t = 0; t < r.m; ++t) sum += static_cast<double>(r.weights(i, t)) * p.V(t, j);
      for (Eigen::Index t = 0; t < r.m; ++t) {
        if (r.m > kMaxTerms && t == kMaxTerms - 2) {
          terms += std::string(" + ") + g.ellipsis;
          t = r.m - 2;
          continue;
        }
        if (t) terms += " + ";
        terms += hand_number(r.weights(i, t)) + g.dot + paren(p.V(t, j));
      }
      e.steps.push_back(terms + " = " + hand_number(sum));
      if (r.d_v <= 4 && r.m <= kMaxTerms) {
        std::string rows = "as whole rows: o_" + std::to_string(i + 1) + " = ";
        for (Eigen::Index t = 0; t < r.m; ++t) {
          if (t) rows += " + ";
          rows += hand_number(r.weights(i, t)) + g.dot + "(";
          for (Eigen::Index c = 0; c < r.d_v; ++c) rows += (c ? ", " : "") + hand_number(p.V(t, c));
          rows += ")";
        }
        rows += " = (";
        for (Eigen::Index c = 0; c < r.d_v; ++c) rows += (c ? ", " : "") + hand_number(r.output(i, c));
        e.steps.push_back(rows + ")");
      }
      e.value = r.output(i, j);
      break;
    }
    case Stage::Pipeline: break;  // a figure, not a cell
  }
  return e;
}

}  // namespace attnlab::gui
