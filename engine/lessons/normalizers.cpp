// The document under each normalizer.
#include "engine/lessons/normalizers.hpp"

#include "engine/lessons/lesson_json.hpp"

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

}  // namespace attnlab
