// The worked example's lines, cell by cell.
#include "engine/lessons/worked_example.hpp"

#include "engine/attention/explain.hpp"
#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/plain.hpp"

namespace attnlab {

WorkedExampleNumbers compute_worked_example(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  const Problem p = s.problem();
  WorkedExampleNumbers w;
  for (Eigen::Index i = 0; i < r.n; ++i) {
    std::vector<std::vector<std::string>> keys;
    for (Eigen::Index j = 0; j < r.m; ++j) keys.push_back(explain_weight(p, r, i, j));
    w.weight_lines.push_back(std::move(keys));
    w.output_lines.push_back(explain_output(p, r, i));
  }
  return w;
}

nlohmann::ordered_json worked_example_to_json(const WorkedExampleNumbers& w, const Scenario&, const Result& r,
                                              const LessonDetail&) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (size_t i = 0; i < w.weight_lines.size(); ++i) {
    const auto& keys = w.weight_lines[i];
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    // Every score and logit of the row, then the row's exps once, then each quotient.
    for (const auto& k : keys) {
      lines.push_back(k[0]);
      lines.push_back(k[1]);
    }
    if (!keys.empty() && keys[0].size() > 3) lines.push_back(keys[0][2]);
    for (const auto& k : keys) lines.push_back(k.back());
    for (const auto& l : w.output_lines[i]) lines.push_back(l);
    rows.push_back(lines);
  }
  nlohmann::ordered_json j = pipeline_json(r);
  j["explain"] = rows;
  return j;
}

// ---- The exercise ----------------------------------------------------------------------------

namespace {

// True when every value row is a basis vector or zero, so an output row reads as a point whose
// coordinates are weights ("13.2 Scaled dot-product attention"'s example).
bool values_on_basis(const MatrixD& V) {
  for (Eigen::Index j = 0; j < V.rows(); ++j) {
    const double ones = (V.row(j).array() == 1.0).cast<double>().sum();
    const double zeros = (V.row(j).array() == 0.0).cast<double>().sum();
    if (zeros + ones != static_cast<double>(V.cols()) || ones > 1) return false;
  }
  return true;
}

}  // namespace

Exercise worked_example_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  const MatrixD V = givens_of(s).V;
  const bool basis = values_on_basis(V);
  const Eigen::Index n = s.Q.rows();
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD given_q = rnd.integers(n, 2, -1, 2), given_k = rnd.integers(n, 2, -1, 2);
    d.set_given(given_q, given_k, V, exercise_options(true, 1), s.query_tokens, s.key_tokens);
    const Exercise& e = d.exercise();
    const Eigen::Index row = rnd.integer(0, n - 1);
    const std::string at = query_label(e, row);
    if (basis) {
      d.row_part(PartKind::ScoresRow, row, 0, "The scores of " + at + ": its query dotted with each key, as whole numbers.");
      d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + at + ": the softmax of the scores ÷ √d_k, " + to_decimals(2) + ".");
      d.row_part(PartKind::OutputRow, row, 2, "The output of " + at + ", a point of the plane: Σ weight · value row, " + to_decimals(2) + ".");
      return true;
    }
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + at + ": the softmax of its scores ÷ √d_k, " + to_decimals(2) + ".");
    d.row_part(PartKind::OutputRow, row, output_decimals(V), "The output of " + at + ": Σ weight · value row, " + to_decimals(output_decimals(V)) + " (keep 4 decimals in the weights on the way).");
    const Eigen::Index other = (row + rnd.integer(1, n - 1)) % n;
    if (!d.clear_argmax(other)) return false;
    d.row_part(PartKind::ArgmaxKey, other, 0, "Which key does " + query_label(e, other) + " attend to most? Its number, counted from 0.");
    return true;
  });
}

}  // namespace attnlab
