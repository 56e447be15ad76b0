// Softmax vs sparsemax vs sigmoid vs hardmax (view normalizers): the same logits through each
// normalizer, side by side.
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_variant.hpp"

#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kNormalizersView = "normalizers";

struct NormalizersNumbers : LessonNumbers {
  std::vector<Normalizer> normalizers;  // softmax, sparsemax, sigmoid, hardmax
  std::vector<LessonVariant> variants;
};

NormalizersNumbers compute_normalizers(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"normalizers": {"softmax": {"weights", "row_sums", "exact_zeros", "output"}, …}}; exact zeros
// count visible cells only.
nlohmann::ordered_json normalizers_to_json(const NormalizersNumbers& n, const Scenario& s, const Result& r,
                                           const LessonDetail& detail);

// The exercise of the normalizers: two queries over four keys, scaling off (the logits are the
// scores, one decimal), sparsemax. (a) A row's sparsemax weights, (b) how many of them are exactly 0,
// (c) the softmax weight of the same row's top key, for comparison.
Exercise normalizers_exercise(const ExerciseRequest& request);

}  // namespace attnlab
