// The document with scaling on and off.
#include "engine/lessons/compare_scaling.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <cmath>

namespace attnlab {

namespace {

nlohmann::ordered_json scaling_rows_json(const Result& r) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& d : r.rows) {
    rows.push_back({{"max_weight", short_double(d.max_weight)},
                    {"entropy", short_double(d.entropy)},
                    {"effective_keys", short_double(d.effective_keys)},
                    {"saturated", d.saturated},
                    {"fully_masked", d.fully_masked}});
  }
  return rows;
}

}  // namespace

CompareScalingNumbers compute_compare_scaling(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  CompareScalingNumbers n;
  n.scaled = document_variant(backend, s, [](Problem& p) { p.options.scale = true; });
  n.unscaled = document_variant(backend, s, [](Problem& p) { p.options.scale = false; });
  return n;
}

nlohmann::ordered_json compare_scaling_to_json(const CompareScalingNumbers& n, const Scenario&, const Result&,
                                               const LessonDetail&) {
  nlohmann::ordered_json j;
  for (const LessonVariant* v : {&n.scaled, &n.unscaled}) {
    const Result& r = computed(*v);
    j[v == &n.scaled ? "scaled" : "unscaled"] = {{"effective_temperature", r.effective_temperature},
                                                 {"logits", matrix_to_json(r.logits)},
                                                 {"weights", matrix_to_json(r.weights)},
                                                 {"output", matrix_to_json(r.output)},
                                                 {"logits_std", r.stats.logits.std},
                                                 {"rows", scaling_rows_json(r)}};
  }
  return j;
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise compare_scaling_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const double T = rnd.pick(std::vector<double>{0.75, 1.5, 3});
    const MatrixD given_q = rnd.integers(3, 4, -1, 2), given_k = rnd.integers(3, 4, -1, 2), given_v = rnd.integers(3, 2, 0, 4);
    d.set_given(given_q, given_k, given_v, exercise_options(true, T), s.query_tokens, s.key_tokens);
    const Exercise& e = d.exercise();
    const Eigen::Index row = rnd.integer(0, 2);
    const std::string at = query_label(e, row);
    d.row_part(PartKind::LogitsRow, row, 2, "With scaling on, the logits of " + at + ": each score ÷ (√d_k · T), " + to_decimals(2) + ".");
    d.row_part(PartKind::WeightsRow, row, 2, "Their weights: the softmax of those logits, " + to_decimals(2) + ".");
    // The same row without ÷√d_k, at the same T; the two slips are scaling after all and leaving T out.
    Givens unscaled = d.givens();
    unscaled.scale = false;
    const WorkedStages off = worked_stages(unscaled, std::nullopt);
    Givens no_t = unscaled;
    no_t.temperature = 1;
    const double largest = off.weights.row(row).maxCoeff();
    const std::vector<double> logits = row_of(off.logits, row);
    std::vector<double> exps;
    double sum = 0;
    for (const double l : logits) sum += exps.emplace_back(std::exp(l - off.logits.row(row).maxCoeff()));
    d.number_part("Without ÷√d_k (scaling off, the same T), the largest weight of " + at + ", " + to_decimals(2) +
                      ": sharper or softer than with it?",
                  largest, 2,
                  {mistake_number(Mistake::NoScaling, d.stages().weights.row(row).maxCoeff()),
                   mistake_number(Mistake::NoTemperature, worked_stages(no_t, std::nullopt).weights.row(row).maxCoeff())},
                  {"without scaling the logits are the scores ÷ T = " + hand_number(T) + ": " + hand_tuple(logits),
                   "exp of each minus the largest: " + hand_tuple(exps) + ", sum " + hand_number(sum),
                   "the largest weight: 1 ÷ " + hand_number(sum) + " = " + hand_number(largest) +
                       (largest > d.stages().weights.row(row).maxCoeff() ? ", sharper than with ÷√d_k" : ", softer than with ÷√d_k")});
    return std::abs(largest - d.stages().weights.row(row).maxCoeff()) > 0.02;
  });
}

}  // namespace attnlab
