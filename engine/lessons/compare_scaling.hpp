// Scaled vs unscaled (view compare-scaling): the same scenario with and without ÷√d_k, side by side.
#pragma once

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

}  // namespace attnlab
