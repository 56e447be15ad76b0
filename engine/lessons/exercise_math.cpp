// An exercise's row parts worked in double: right, and with each mistake students make.
#include "engine/lessons/exercise_math.hpp"

#include "engine/attention/explain.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>

namespace attnlab {

namespace {

constexpr double kMinusInf = -std::numeric_limits<double>::infinity();

// A float of the given as its JSON writes it: the shortest decimals that read back as that float.
double as_written(float v) { return std::stod(shortest_decimals(v)); }

MatrixD written(const Matrix& M) {
  MatrixD D(M.rows(), M.cols());
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) D(i, j) = as_written(M(i, j));
  }
  return D;
}

// RoPE's rotate-half rotation in double, row r at positions[r] (attention/rope.hpp's rule).
MatrixD rotated(const MatrixD& X, const std::vector<std::int64_t>& positions, const std::vector<double>& f) {
  MatrixD R = X;
  const Eigen::Index half = X.cols() / 2;
  for (Eigen::Index r = 0; r < X.rows(); ++r) {
    for (Eigen::Index t = 0; t < half; ++t) {
      const double a = static_cast<double>(positions[static_cast<size_t>(r)]) * f[static_cast<size_t>(t)];
      R(r, t) = X(r, t) * std::cos(a) - X(r, t + half) * std::sin(a);
      R(r, t + half) = X(r, t + half) * std::cos(a) + X(r, t) * std::sin(a);
    }
  }
  return R;
}

std::vector<double> softmax(const std::vector<double>& x) {
  double mx = kMinusInf;
  for (const double v : x) mx = std::max(mx, v);
  std::vector<double> w(x.size(), 0.0);
  if (!std::isfinite(mx)) return w;  // every key blocked: zeros, never NaN
  double sum = 0;
  for (size_t j = 0; j < x.size(); ++j) sum += (w[j] = std::isfinite(x[j]) ? std::exp(x[j] - mx) : 0.0);
  for (double& v : w) v /= sum;
  return w;
}

// Sparsemax (Martins & Astudillo): the Euclidean projection onto the simplex; blocked keys get 0.
std::vector<double> sparsemax(const std::vector<double>& x) {
  std::vector<double> z;
  for (const double v : x) {
    if (std::isfinite(v)) z.push_back(v);
  }
  std::vector<double> w(x.size(), 0.0);
  if (z.empty()) return w;
  std::sort(z.begin(), z.end(), std::greater<>());
  double cumulative = 0, tau = 0;
  for (size_t k = 0; k < z.size(); ++k) {
    cumulative += z[k];
    if (1 + static_cast<double>(k + 1) * z[k] > cumulative) tau = (cumulative - 1) / static_cast<double>(k + 1);
  }
  for (size_t j = 0; j < x.size(); ++j) w[j] = std::isfinite(x[j]) ? std::max(0.0, x[j] - tau) : 0.0;
  return w;
}

std::vector<double> normalized(Normalizer n, const std::vector<double>& x) {
  if (n == Normalizer::Softmax) return softmax(x);
  if (n == Normalizer::Sparsemax) return sparsemax(x);
  // Sigmoid and hardmax: the engine's own rule (no exercise is drawn with them).
  std::vector<float> w(x.size());
  normalize_row(n, x.data(), w.data(), static_cast<Eigen::Index>(x.size()));
  return {w.begin(), w.end()};
}

MatrixD normalized_rows(Normalizer n, const MatrixD& L) {
  MatrixD A(L.rows(), L.cols());
  for (Eigen::Index i = 0; i < L.rows(); ++i) {
    std::vector<double> row(L.row(i).data(), L.row(i).data() + L.cols());
    const std::vector<double> w = normalized(n, row);
    for (Eigen::Index j = 0; j < L.cols(); ++j) A(i, j) = w[static_cast<size_t>(j)];
  }
  return A;
}

bool blocked(const Givens& g, Eigen::Index i, Eigen::Index j) { return g.mask.is_blocked(i, j); }

double tolerance(double expected, int decimals) {
  return 0.5 * std::pow(10.0, -decimals) + 1e-9 * std::max(1.0, std::abs(expected));
}

std::set<std::pair<long long, long long>> cell_set(const AnswerValue& v) {
  std::set<std::pair<long long, long long>> s;
  for (size_t k = 0; k + 1 < v.values.size(); k += 2) {
    s.emplace(std::llround(v.values[k].value_or(-1)), std::llround(v.values[k + 1].value_or(-1)));
  }
  return s;
}

// True when some entry of `a` is more than one unit of the last decimal away from `e` (or null
// where `e` is a number, or the other way round).
bool clearly_differs(const AnswerValue& a, const AnswerValue& e, PartKind kind, int decimals) {
  if (kind == PartKind::ArgmaxKey || kind == PartKind::Blocked) return !answer_matches(a, e, kind, decimals);
  if (a.shape != e.shape) return true;
  for (size_t k = 0; k < a.values.size(); ++k) {
    if (a.values[k].has_value() != e.values[k].has_value()) return true;
    if (a.values[k] && std::abs(*a.values[k] - *e.values[k]) > std::pow(10.0, -decimals) + 1e-9) return true;
  }
  return false;
}

// Every way of making `m` on this row kind: the one stage recomputed, and for output rows under
// transposed both transpositions (K Qᵀ, and Aᵀ V).
std::vector<AnswerValue> mistaken_answers(const Givens& g, PartKind kind, Eigen::Index row, Mistake m) {
  std::vector<AnswerValue> out{row_answer(worked_stages(g, m), kind, row)};
  if (kind == PartKind::OutputRow && m == Mistake::Transposed) {
    out.push_back(row_answer(worked_stages(g, std::nullopt, true), kind, row));
  }
  return out;
}

// Whether a mistake changes the stage a row kind reads at all.
bool reaches(PartKind kind, Mistake m) {
  switch (kind) {
    case PartKind::ScoresRow: return m == Mistake::Transposed;
    case PartKind::LogitsRow: return m != Mistake::MaskAfterSoftmax && m != Mistake::WrongAxis;
    case PartKind::WeightsRow:
    case PartKind::OutputRow:
    case PartKind::ArgmaxKey: return true;
    default: return false;
  }
}

}  // namespace

Givens givens_of(const Scenario& s) {
  Givens g;
  g.Q = written(s.Q);
  g.K = written(s.K);
  g.V = written(s.V);
  g.scale = s.options.scale;
  g.temperature = s.options.temperature;
  g.mask = s.options.mask;
  g.normalizer = s.options.normalizer;
  if (s.options.rope) {
    const RopeSettings& rope = *s.options.rope;
    const std::vector<double> f = rope_frequencies(rope.theta, rope.scaling, g.Q.cols());
    g.Q = rotated(g.Q, rope_positions(rope.query_positions, g.Q.rows()), f);
    g.K = rotated(g.K, rope_positions(rope.key_positions, g.K.rows()), f);
  }
  return g;
}

bool mistake_possible(const Givens& g, Mistake m) {
  switch (m) {
    case Mistake::NoScaling: return g.d_k() > 1;
    case Mistake::DividedByDk: return g.scale && g.d_k() > 1;
    case Mistake::NoTemperature: return g.temperature != 1;
    case Mistake::NoMask:
    case Mistake::MaskAfterSoftmax:
      for (Eigen::Index i = 0; i < g.n(); ++i) {
        for (Eigen::Index j = 0; j < g.m(); ++j) {
          if (blocked(g, i, j)) return true;
        }
      }
      return false;
    case Mistake::WrongAxis: return true;
    case Mistake::Transposed: return g.n() == g.m();
    case Mistake::Arithmetic: return false;
  }
  return false;
}

WorkedStages worked_stages(const Givens& g, std::optional<Mistake> mistake, bool transposed_output) {
  const auto is = [&](Mistake m) { return mistake && *mistake == m; };
  if ((is(Mistake::Transposed) || transposed_output) && g.n() != g.m()) {
    throw std::logic_error("worked_stages: a transposition needs as many queries as keys");
  }
  WorkedStages st;
  st.scores = g.Q * g.K.transpose();
  const MatrixD S = is(Mistake::Transposed) ? MatrixD(st.scores.transpose()) : st.scores;
  if (is(Mistake::Transposed)) st.scores = S;
  const double root = std::sqrt(static_cast<double>(g.d_k()));
  double s = g.scale ? root : 1.0;
  if (is(Mistake::NoScaling)) s = g.scale ? 1.0 : root;
  if (is(Mistake::DividedByDk)) s = static_cast<double>(g.d_k());
  const double T = is(Mistake::NoTemperature) ? 1.0 : g.temperature;
  const bool masked = !is(Mistake::NoMask) && !is(Mistake::MaskAfterSoftmax);
  st.logits = S / (s * T);
  for (Eigen::Index i = 0; i < g.n(); ++i) {
    for (Eigen::Index j = 0; j < g.m(); ++j) {
      if (masked && blocked(g, i, j)) st.logits(i, j) = kMinusInf;
    }
  }
  if (is(Mistake::WrongAxis)) {
    st.weights = MatrixD(normalized_rows(g.normalizer, st.logits.transpose()).transpose());
  } else {
    st.weights = normalized_rows(g.normalizer, st.logits);
  }
  if (is(Mistake::MaskAfterSoftmax)) {
    for (Eigen::Index i = 0; i < g.n(); ++i) {
      for (Eigen::Index j = 0; j < g.m(); ++j) {
        if (blocked(g, i, j)) st.weights(i, j) = 0;
      }
    }
  }
  st.output = transposed_output ? MatrixD(st.weights.transpose() * g.V) : MatrixD(st.weights * g.V);
  return st;
}

AnswerValue row_answer(const WorkedStages& st, PartKind kind, Eigen::Index row) {
  const auto of = [&](const MatrixD& M) {
    std::vector<std::optional<double>> v;
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      const double x = M(row, j);
      v.push_back(std::isfinite(x) ? std::optional<double>(x) : std::nullopt);
    }
    return AnswerValue::row(std::move(v));
  };
  switch (kind) {
    case PartKind::ScoresRow: return of(st.scores);
    case PartKind::LogitsRow: return of(st.logits);
    case PartKind::WeightsRow: return of(st.weights);
    case PartKind::OutputRow: return of(st.output);
    case PartKind::ArgmaxKey: {
      Eigen::Index best = 0;
      for (Eigen::Index j = 1; j < st.weights.cols(); ++j) {
        if (st.weights(row, j) > st.weights(row, best)) best = j;
      }
      return AnswerValue::number(static_cast<double>(best));
    }
    default: throw std::logic_error("row_answer: not a row kind");
  }
}

std::vector<long long> tied_keys(const WorkedStages& st, Eigen::Index row) {
  const double top = st.weights.row(row).maxCoeff();
  std::vector<long long> keys;
  for (Eigen::Index j = 0; j < st.weights.cols(); ++j) {
    if (std::abs(st.weights(row, j) - top) <= 1e-9) keys.push_back(j);
  }
  return keys;
}

bool answer_matches(const AnswerValue& a, const AnswerValue& e, PartKind kind, int decimals) {
  if (kind == PartKind::Blocked) return cell_set(a) == cell_set(e);
  if (a.shape != e.shape || a.values.size() != e.values.size()) return false;
  for (size_t k = 0; k < a.values.size(); ++k) {
    if (a.values[k].has_value() != e.values[k].has_value()) return false;
    if (!a.values[k]) continue;
    const double tol = kind == PartKind::ArgmaxKey ? 0.0 : tolerance(*e.values[k], decimals);
    if (!(std::abs(*a.values[k] - *e.values[k]) <= tol)) return false;
  }
  return true;
}

std::vector<MistakeAnswer> row_mistakes(const Givens& g, PartKind kind, Eigen::Index row, const AnswerValue& expected,
                                        int decimals) {
  std::vector<MistakeAnswer> out;
  for (const Mistake m : kMistakeOrder) {
    if (!mistake_possible(g, m) || !reaches(kind, m)) continue;
    for (AnswerValue& v : mistaken_answers(g, kind, row, m)) {
      if (!answer_matches(v, expected, kind, decimals)) out.push_back({m, std::move(v)});
    }
  }
  return out;
}

std::vector<Mistake> promised_mistakes(const Givens& g, PartKind kind, Eigen::Index row) {
  if (kind == PartKind::ScoresRow) {
    return g.n() == g.m() ? std::vector<Mistake>{Mistake::Transposed} : std::vector<Mistake>{};
  }
  if (kind != PartKind::LogitsRow && kind != PartKind::WeightsRow && kind != PartKind::OutputRow) return {};
  long long hidden = 0;
  for (Eigen::Index j = 0; j < g.m(); ++j) hidden += blocked(g, row, j);
  const bool logits = kind == PartKind::LogitsRow;
  std::vector<Mistake> out;
  for (const Mistake m : kMistakeOrder) {
    bool promise = mistake_possible(g, m) && reaches(kind, m);
    if (m == Mistake::NoMask || m == Mistake::MaskAfterSoftmax) promise = promise && hidden > 0 && g.m() - hidden >= 2;
    if (m == Mistake::WrongAxis) promise = promise && g.n() > 1 && !logits;
    if (promise) out.push_back(m);
  }
  return out;
}

bool keeps_promises(const Givens& g, const ExercisePart& part) {
  // Each promised mistake's answers, told apart from the right one and from every other's, so
  // that the grader can name each of them.
  std::vector<std::pair<Mistake, AnswerValue>> seen;
  for (const Mistake m : promised_mistakes(g, part.kind, part.row)) {
    for (AnswerValue& v : mistaken_answers(g, part.kind, part.row, m)) {
      if (!clearly_differs(v, part.expected, part.kind, part.decimals)) return false;
      for (const auto& [other, w] : seen) {
        if (other != m && !clearly_differs(v, w, part.kind, part.decimals)) return false;
      }
      seen.emplace_back(m, std::move(v));
    }
  }
  return true;
}


// ---- The worked arithmetic -------------------------------------------------------------------

namespace {

// Sparsemax by hand: sort, find the support, the threshold τ, then max(logit − τ, 0).
std::vector<std::string> sparsemax_working(const Result& r, Eigen::Index row) {
  std::vector<double> z;
  for (Eigen::Index j = 0; j < r.m; ++j) {
    if (std::isfinite(r.logits(row, j))) z.push_back(r.logits(row, j));
  }
  if (z.empty()) return {"every key of this row is blocked: the weights are all 0"};
  std::sort(z.begin(), z.end(), std::greater<>());
  std::string sorted, kept;
  double cumulative = 0, tau = 0;
  size_t support = 0;
  for (size_t k = 0; k < z.size(); ++k) {
    sorted += (k ? ", " : "") + hand_number(z[k]);
    cumulative += z[k];
    if (1 + static_cast<double>(k + 1) * z[k] > cumulative) {
      support = k + 1;
      tau = (cumulative - 1) / static_cast<double>(k + 1);
    }
  }
  for (size_t k = 0; k < support; ++k) kept += (k ? " + " : "") + hand_number(z[k]);
  std::string weights;
  for (Eigen::Index j = 0; j < r.m; ++j) weights += (j ? ", " : "") + hand_number(r.weights(row, j));
  return {"sparsemax: the logits from the largest: " + sorted,
          "keep the k largest while 1 + k·z_k > z_1 + … + z_k: k = " + std::to_string(support),
          "τ = (" + kept + " − 1) ÷ " + std::to_string(support) + " = " + hand_number(tau),
          "weights = max(logit − τ, 0) = (" + weights + ")"};
}

}  // namespace

std::vector<std::string> row_working(const Scenario& given, const Result& r, PartKind kind, Eigen::Index row) {
  const Problem p = given.problem();
  const std::vector<std::string> qt = display_tokens(given.query_tokens, r.n), kt = display_tokens(given.key_tokens, r.m);
  const auto steps = [&](Stage stage, Eigen::Index col) {
    return explain_cell(p, r, CellRef{stage, static_cast<int>(row), static_cast<int>(col)}, qt, kt).steps;
  };
  // With RoPE, the Explain panel's first two steps say where the two rows stand and what the
  // rotation made of them: the query's is written once, before the row.
  const size_t lead = p.options.rope ? 2 : 0;
  std::vector<std::string> lines;
  const Stage first = kind == PartKind::ScoresRow ? Stage::Scores : Stage::Logits;
  for (Eigen::Index j = 0; j < r.m; ++j) {
    const std::vector<std::string> s = steps(first, j);
    lines.insert(lines.end(), s.begin() + static_cast<std::ptrdiff_t>(j == 0 ? 0 : lead), s.end());
  }
  if (kind == PartKind::ScoresRow || kind == PartKind::LogitsRow) return lines;
  if (p.options.normalizer == Normalizer::Sparsemax) {
    for (const std::string& l : sparsemax_working(r, row)) lines.push_back(l);
  } else if (r.rows[static_cast<size_t>(row)].fully_masked || p.options.normalizer != Normalizer::Softmax) {
    lines.push_back(steps(Stage::Weights, 0).back());
  } else {
    Eigen::Index visible = 0;
    while (visible < r.m && p.options.mask.is_blocked(row, visible)) ++visible;
    const std::vector<std::string> s = steps(Stage::Weights, visible);
    lines.push_back(s[lead + 2]);  // the row's exps
    lines.push_back(s[lead + 3]);  // their sum
    for (Eigen::Index j = 0; j < r.m; ++j) lines.push_back(steps(Stage::Weights, j).back());
  }
  if (kind == PartKind::ArgmaxKey) {
    Eigen::Index best = 0;
    for (Eigen::Index j = 1; j < r.m; ++j) {
      if (r.weights(row, j) > r.weights(row, best)) best = j;
    }
    lines.push_back("the largest weight is key " + std::to_string(best) + " (" + kt[static_cast<size_t>(best)] +
                    "): " + hand_number(r.weights(row, best)));
  }
  if (kind == PartKind::OutputRow) {
    const std::vector<std::string> s = steps(Stage::Output, 0);
    if (s.size() > 1) {
      lines.push_back(s.back());  // the output as a sum of whole value rows
    } else {
      for (Eigen::Index c = 0; c < r.d_v; ++c) lines.push_back(steps(Stage::Output, c).front());
    }
  }
  return lines;
}

}  // namespace attnlab
