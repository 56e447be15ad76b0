// The mask family of "The Query-Key-Value framework" (view mask-family): causal, padding,
// bidirectional and prefix-LM masks (and a window) on the same scenario, side by side.
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_variant.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kMaskFamilyView = "mask-family";

struct MaskFamilyParams {
  // lesson.masks: as the command line's --mask writes them ("none", "causal", "padding:3", …)
  std::vector<std::string> masks{"none", "causal", "padding:3", "prefix:2", "window:2"};
};
MaskFamilyParams mask_family_params(const LessonFields& f);

struct MaskFamilyNumbers : LessonNumbers {
  std::vector<std::string> specs;       // the lesson's masks, as written ("causal", "padding:4")
  std::vector<LessonVariant> variants;  // one per spec
};

MaskFamilyNumbers compute_mask_family(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"masks": [{"mask", "blocked", "weights", "row_sums", "padding_rows"}]}
nlohmann::ordered_json mask_family_to_json(const MaskFamilyNumbers& n, const Scenario& s, const Result& r,
                                           const LessonDetail& detail);

// The exercise of the mask family: five positions under one of the lesson's masks other than none
// (causal, padding, prefix-LM or window), d_k = 2. (a) The blocked cells, (b) a masked row's weights,
// (c) the key another row attends to most.
Exercise mask_family_exercise(const ExerciseRequest& request);

}  // namespace attnlab
