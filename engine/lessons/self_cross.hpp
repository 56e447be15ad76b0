// Self- vs cross-attention (view self-cross): the document's rectangular cross-attention beside
// the keys' sequence attending to itself, whose score matrix is square.
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_variant.hpp"

#include <string_view>

namespace attnlab {

inline constexpr std::string_view kSelfCrossView = "self-cross";

// The self-attention twin of a cross-attention scenario: the keys' sequence attends to itself
// (Q := K, query tokens := key tokens), so its score matrix is square.
Scenario self_attention_twin(const Scenario& cross);

struct SelfCrossNumbers : LessonNumbers {
  Scenario self_twin;          // the keys' sequence attending to itself
  LessonVariant cross, self;   // the document (cross-attention) and its twin
};

SelfCrossNumbers compute_self_cross(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"cross": {"shape", "square", "weights", "query_tokens", "key_tokens"}, "self": {…, "tokens"}}
nlohmann::ordered_json self_cross_to_json(const SelfCrossNumbers& n, const Scenario& s, const Result& r,
                                          const LessonDetail& detail);

// The exercise of self- vs cross-attention: two decoder queries against three encoder keys, d_k = 2.
// (a) The whole 2 × 3 score matrix, (b) a row's weights, (c) its output.
Exercise self_cross_exercise(const ExerciseRequest& request);

}  // namespace attnlab
