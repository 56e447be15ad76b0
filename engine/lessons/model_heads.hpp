// "What heads do in a trained model" (view model-heads; docs/MODELS.md, "Head kinds"): the
// document's head judged by the Model window's detector. The GUI's view opens a real model beside it.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/model/head_kinds.hpp"

#include <string_view>

namespace attnlab {

inline constexpr std::string_view kModelHeadsView = "model-heads";

// The head verdict of the document's weights with tokens of equal labels sharing an id (the
// detector's input), for the model-heads and train-induction lessons.
model::HeadVerdict document_head_verdict(const Scenario& s, const Result& r);

struct ModelHeadsNumbers : LessonNumbers {
  model::HeadVerdict example;
};

ModelHeadsNumbers compute_model_heads(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
nlohmann::ordered_json model_heads_to_json(const ModelHeadsNumbers& n, const Scenario& s, const Result& r,
                                           const LessonDetail& detail);

// The plain view's numbers, the head's kind and score as "example_head", and where to find GPT-2
// for a terminal with no model open ("get_gpt2").
nlohmann::ordered_json head_verdict_json(const model::HeadVerdict& v, const Result& r);

// The exercise of the model heads: a previous-token head made by hand on four tokens (query i is key
// i − 1's direction, causal). (a) A row's scores, (b) its weights, (c) the earlier token another row
// attends to.
Exercise model_heads_exercise(const ExerciseRequest& request);

}  // namespace attnlab
