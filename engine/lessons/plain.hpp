// The plain view (a lesson object with no view, or one this build does not know): the document's
// own weights and output. Its JSON is also the first part of the worked example's and the model
// heads' (pipeline_json).
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <string_view>

namespace attnlab {

inline constexpr std::string_view kPlainView = "plain";

struct PlainNumbers : LessonNumbers {};

PlainNumbers compute_plain(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
nlohmann::ordered_json plain_to_json(const PlainNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// {"weights", "output", "row_sums"} of a result.
nlohmann::ordered_json pipeline_json(const Result& r);

// The exercise of a lesson with no view of its own (causal-six, Exercise 2.3.2): the lesson's own
// size and mask with new numbers (n ≤ 6, d_k = 2, whole numbers). With a mask: (a) the blocked cells,
// (b) a masked row's logits, (c) its weights; without: a row's logits, weights and output.
Exercise plain_exercise(const ExerciseRequest& request);

}  // namespace attnlab
