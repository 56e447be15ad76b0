// Scaled vs unscaled (view compare-scaling): the same scenario with and without ÷√d_k, side by side.
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_variant.hpp"

#include <string_view>

namespace attnlab {

inline constexpr std::string_view kCompareScalingView = "compare-scaling";

struct CompareScalingNumbers : LessonNumbers {
  LessonVariant scaled, unscaled;
};

CompareScalingNumbers compute_compare_scaling(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"scaled", "unscaled"}: each one's effective temperature, logits, weights, output, the logits'
// std and its rows' diagnostics.
nlohmann::ordered_json compare_scaling_to_json(const CompareScalingNumbers& n, const Scenario& s, const Result& r,
                                               const LessonDetail& detail);

// The exercise of scaled vs unscaled: three tokens, d_k = 4, a temperature T of 0.75, 1.5 or 3 (with
// √d_k = 2, no two slips then divide by the same number). (a) A row's logits with ÷√d_k at T, (b) its
// weights, (c) the row's largest weight without ÷√d_k, same T.
Exercise compare_scaling_exercise(const ExerciseRequest& request);

}  // namespace attnlab
