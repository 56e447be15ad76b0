// The document under each normalizer.
#include "engine/lessons/normalizers.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"

#include <cmath>
#include <string>

namespace attnlab {

NormalizersNumbers compute_normalizers(const Scenario& s, const Result&, Backend& backend, const LessonDetail&) {
  NormalizersNumbers n;
  n.normalizers = {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax};
  for (const Normalizer k : n.normalizers) {
    n.variants.push_back(document_variant(backend, s, [k](Problem& p) { p.options.normalizer = k; }));
  }
  return n;
}

nlohmann::ordered_json normalizers_to_json(const NormalizersNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  nlohmann::ordered_json j;
  for (size_t k = 0; k < n.normalizers.size(); ++k) {
    const Result& r = computed(n.variants[k]);
    const Mask& mask = n.variants[k].options.mask;
    long long zeros = 0;
    for (Eigen::Index i = 0; i < r.weights.rows(); ++i)
      for (Eigen::Index c = 0; c < r.weights.cols(); ++c) zeros += r.weights(i, c) == 0.0f && !mask.is_blocked(i, c);
    j[std::string(normalizer_name(n.normalizers[k]))] = {{"weights", matrix_to_json(r.weights)},
                                                         {"row_sums", row_sums_json(r.weights)},
                                                         {"exact_zeros", zeros},
                                                         {"output", matrix_to_json(r.output)}};
  }
  return {{"normalizers", j}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise normalizers_exercise(const ExerciseRequest& request) {
  Options options = exercise_options(false, 1);
  options.normalizer = Normalizer::Sparsemax;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD given_q = rnd.integers(2, 2, -1, 2), given_k = rnd.tenths(4, 2, -10, 10), given_v = rnd.integers(4, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, options, {"q1", "q2"}, {"k1", "k2", "k3", "k4"});
    const Exercise& e = d.exercise();
    const Eigen::Index row = rnd.integer(0, 1);
    const std::string at = query_label(e, row);
    // The sparsemax weights with the slip of scaling after all, for the count of zeros.
    Givens scaled = d.givens();
    scaled.scale = true;
    const auto zeros = [&](const WorkedStages& st) { return static_cast<double>((st.weights.row(row).array() == 0.0).count()); };
    const double exact_zeros = zeros(d.stages());
    if (exact_zeros < 1 || exact_zeros > 2) return false;  // some zeros, and at least two keys kept
    d.row_part(PartKind::WeightsRow, row, 2, "The sparsemax weights of " + at + " (its logits are its scores), " + to_decimals(2) + ".");
    d.number_part("How many keys of " + at + " get a weight of exactly 0 from sparsemax?", exact_zeros, 0,
                  {mistake_number(Mistake::NoScaling, zeros(worked_stages(scaled, std::nullopt)))},
                  {"sparsemax keeps the keys whose logit is above τ and gives the others exactly 0: " +
                   std::to_string(static_cast<int>(exact_zeros)) + " of them"});
    // Softmax on the same logits: dense, never exactly 0.
    Givens soft = d.givens();
    soft.normalizer = Normalizer::Softmax;
    const WorkedStages st = worked_stages(soft, std::nullopt);
    Givens soft_scaled = soft;
    soft_scaled.scale = true;
    const double top = st.weights.row(row).maxCoeff();
    std::vector<double> exps;
    double sum = 0;
    for (const double l : row_of(st.logits, row)) sum += exps.emplace_back(std::exp(l));
    d.number_part("For comparison, the softmax weight of the same row's top key, " + to_decimals(2) + ".", top, 2,
                  {mistake_number(Mistake::NoScaling, worked_stages(soft_scaled, std::nullopt).weights.row(row).maxCoeff())},
                  {"exps of the logits: " + hand_tuple(exps) + ", sum " + hand_number(sum),
                   "the top key's weight: " + hand_number(top) + " (softmax gives every key some weight)"});
    return true;
  });
}

}  // namespace attnlab
