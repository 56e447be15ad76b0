// Drawing an exercise: small numbers from the seed's stream, parts from the givens, draws again
// until every promised mistake is told apart from the right answer.
#include "engine/lessons/exercise_draw.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/text/text_format.hpp"

#include <stdexcept>

namespace attnlab {

namespace {

// FNV-1a of the lesson's name, so that two lessons drawn with one seed differ.
std::uint64_t lesson_hash(std::string_view lesson) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : lesson) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

// A matrix of doubles as the scenario keeps it (float), which its JSON writes back as drawn.
Matrix as_float(const MatrixD& M) { return M.cast<float>(); }

std::vector<std::string> blocked_working(const Exercise& e) {
  std::vector<std::string> lines{mask_rule(e.given.options.mask)};
  const Eigen::Index n = e.given.Q.rows(), m = e.given.K.rows();
  for (Eigen::Index i = 0; i < n; ++i) {
    std::string keys;
    for (Eigen::Index j = 0; j < m; ++j) {
      if (e.given.options.mask.is_blocked(i, j)) keys += (keys.empty() ? "" : ", ") + std::to_string(j);
    }
    lines.push_back(query_label(e, i) + ": " + (keys.empty() ? "no key hidden" : "keys " + keys + " hidden"));
  }
  return lines;
}

}  // namespace

ExerciseRandom::ExerciseRandom(std::string_view lesson, std::uint64_t seed) : bits_(lesson_hash(lesson) ^ seed) {}

long long ExerciseRandom::integer(long long lo, long long hi) {
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<long long>(bits_.next_bits() % span);
}

MatrixD ExerciseRandom::integers(Eigen::Index rows, Eigen::Index cols, long long lo, long long hi) {
  MatrixD M(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) M(i, j) = static_cast<double>(integer(lo, hi));
  }
  return M;
}

MatrixD ExerciseRandom::tenths(Eigen::Index rows, Eigen::Index cols, long long lo, long long hi) {
  MatrixD M = integers(rows, cols, lo, hi);
  return M / 10.0;
}

Options exercise_options(bool scale, double temperature, const Mask& mask) {
  Options o;
  o.scale = scale;
  o.temperature = temperature;
  o.mask = mask;
  return o;
}

std::string to_decimals(int decimals) {
  if (decimals == 0) return "as a whole number";
  return "to " + count_of(decimals, "decimal");
}

void add_extra_matrix(Exercise& e, const std::string& key, const std::string& name, const MatrixD& M) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index j = 0; j < M.cols(); ++j) row.push_back(M(i, j));
    rows.push_back(row);
  }
  e.extra[key] = rows;
  e.extra_matrices.push_back({name, M});
}

std::string hand_tuple(const std::vector<double>& v) {
  std::string out = "(";
  for (size_t k = 0; k < v.size(); ++k) out += (k ? ", " : "") + hand_number(v[k]);
  return out + ")";
}

std::vector<double> row_of(const MatrixD& M, Eigen::Index row) {
  std::vector<double> v;
  for (Eigen::Index j = 0; j < M.cols(); ++j) v.push_back(M(row, j));
  return v;
}

int output_decimals(const MatrixD& V) { return V.cwiseAbs().maxCoeff() <= 1 ? 2 : 1; }

std::vector<std::string> first_tokens(const std::vector<std::string>& tokens, Eigen::Index n) {
  if (static_cast<Eigen::Index>(tokens.size()) < n) return display_tokens({}, n);
  return {tokens.begin(), tokens.begin() + n};
}

std::string mask_rule(const Mask& mask) {
  const std::string p = std::to_string(mask.param);
  switch (mask.kind) {
    case MaskKind::None: return "no mask: every query sees every key";
    case MaskKind::Causal: return "causal mask: key j is hidden from query i when j > i";
    case MaskKind::Padding: return "padding mask, " + p + " valid positions: keys " + p + " and after are hidden from every query";
    case MaskKind::Prefix:
      return "prefix-LM mask, a prefix of " + p + ": keys before " + p +
             " are seen by every query; after them, key j is hidden from query i when j > i";
    case MaskKind::Window:
      return "sliding-window mask of width " + p + ": query i sees key j only when 0 ≤ i − j < " + p;
    case MaskKind::Custom: return "a mask drawn by hand: the blocked cells are listed";
  }
  return {};
}

ExerciseDraft::ExerciseDraft(const ExerciseRequest& request) {
  e_.lesson = std::string(request.lesson);
  e_.seed = request.seed;
  e_.title = request.preset.title;
}

void ExerciseDraft::set_given(const MatrixD& Q, const MatrixD& K, const MatrixD& V, const Options& options,
                              std::vector<std::string> query_tokens, std::vector<std::string> key_tokens) {
  Scenario& s = e_.given;
  s.title = e_.title;
  s.Q = as_float(Q);
  s.K = as_float(K);
  s.V = as_float(V);
  s.options = options;
  s.query_tokens = std::move(query_tokens);
  s.key_tokens = std::move(key_tokens);
  validate_scenario(s, "exercise");
  givens_ = givens_of(s);
  stages_ = worked_stages(givens_, std::nullopt);
  result_ = make_cpu_backend()->compute(s.problem());
}

ExercisePart& ExerciseDraft::add(PartKind kind, std::string prompt, int decimals) {
  ExercisePart p;
  p.id = std::string(1, static_cast<char>('a' + e_.parts.size()));
  p.kind = kind;
  p.prompt = std::move(prompt);
  p.decimals = decimals;
  e_.parts.push_back(std::move(p));
  return e_.parts.back();
}

ExercisePart& ExerciseDraft::row_part(PartKind kind, Eigen::Index row, int decimals, std::string prompt) {
  ExercisePart& p = add(kind, std::move(prompt), kind == PartKind::ArgmaxKey ? 0 : decimals);
  p.row = row;
  p.expected = row_answer(stages_, kind, row);
  p.shape = p.expected.shape;
  if (kind == PartKind::ArgmaxKey) p.tied_keys = tied_keys(stages_, row);
  p.mistakes = row_mistakes(givens_, kind, row, p.expected, p.decimals);
  p.working = row_working(e_.given, result_, kind, row);
  return p;
}

ExercisePart& ExerciseDraft::blocked_part(std::string prompt) {
  ExercisePart& p = add(PartKind::Blocked, std::move(prompt), 0);
  p.shape = {-1, 2};
  std::vector<std::pair<long long, long long>> cells, mirrored;
  const Eigen::Index n = givens_.n(), m = givens_.m();
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      if (givens_.mask.is_blocked(i, j)) cells.emplace_back(i, j);
      if (n == m && givens_.mask.is_blocked(j, i)) mirrored.emplace_back(i, j);
    }
  }
  p.expected = AnswerValue::cells(cells);
  for (const MistakeAnswer& c : {MistakeAnswer{Mistake::NoMask, AnswerValue::cells({})},
                                 MistakeAnswer{Mistake::Transposed, AnswerValue::cells(mirrored)}}) {
    if (c.mistake == Mistake::Transposed && n != m) continue;
    if (!answer_matches(c.value, p.expected, PartKind::Blocked, 0)) p.mistakes.push_back(c);
  }
  p.working = blocked_working(e_);
  return p;
}

ExercisePart& ExerciseDraft::number_part(std::string prompt, double value, int decimals, std::vector<MistakeAnswer> mistakes,
                                         std::vector<std::string> working) {
  ExercisePart& p = add(PartKind::Number, std::move(prompt), decimals);
  p.expected = AnswerValue::number(value);
  // In kMistakeOrder, as the grader reads them; those that give the answer anyway are no mistake.
  for (const Mistake m : kMistakeOrder) {
    for (MistakeAnswer& c : mistakes) {
      if (c.mistake == m && !answer_matches(c.value, p.expected, PartKind::Number, decimals)) p.mistakes.push_back(c);
    }
  }
  p.working = std::move(working);
  return p;
}

ExercisePart& ExerciseDraft::matrix_part(std::string prompt, const MatrixD& value, int decimals,
                                         std::vector<std::string> working) {
  ExercisePart& p = add(PartKind::Matrix, std::move(prompt), decimals);
  p.shape = {value.rows(), value.cols()};
  p.expected.shape = p.shape;
  for (Eigen::Index i = 0; i < value.rows(); ++i) {
    for (Eigen::Index j = 0; j < value.cols(); ++j) p.expected.values.emplace_back(value(i, j));
  }
  p.working = std::move(working);
  return p;
}

bool ExerciseDraft::clear_argmax(Eigen::Index row, double margin) const {
  const auto w = stages_.weights.row(row);
  double top = -1, second = -1;
  for (Eigen::Index j = 0; j < w.size(); ++j) {
    if (w(j) > top) {
      second = top;
      top = w(j);
    } else if (w(j) > second) {
      second = w(j);
    }
  }
  return top - second >= margin;
}

bool ExerciseDraft::keeps_promises() const {
  for (const ExercisePart& p : e_.parts) {
    if (!attnlab::keeps_promises(givens_, p)) return false;
  }
  return true;
}

Exercise draw_exercise(const ExerciseRequest& request, const std::function<bool(ExerciseRandom&, ExerciseDraft&)>& draw) {
  ExerciseRandom random(request.lesson, request.seed);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    ExerciseDraft draft(request);
    if (draw(random, draft) && draft.keeps_promises()) return draft.take();
  }
  throw std::logic_error("the exercise of " + std::string(request.lesson) + " found no givens in 1000 draws");
}

}  // namespace attnlab
