// "Watch an induction head form" (view train-induction): the document's hand-made induction head
// judged by the detector, and the run the GUI trains live (the Training window), for a terminal to
// repeat it with `attnlab train`.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/trainer.hpp"

#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kTrainInductionView = "train-induction";

struct TrainInductionNumbers : LessonNumbers {
  model::HeadVerdict example;
  model::TrainConfig train;  // resolved: the engine's induction defaults
  std::vector<int> probe;
};

TrainInductionNumbers compute_train_induction(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// The model-heads lesson's numbers without "get_gpt2", and "train": the task, the model's shape,
// the optimiser's settings, the probe sequence and the command that repeats the run.
nlohmann::ordered_json train_induction_to_json(const TrainInductionNumbers& n, const Scenario& s, const Result& r,
                                               const LessonDetail& detail);

// The exercise of the induction head: six tokens, four symbols and a repeat of the first two, an
// induction head made by hand (query: the token; key j: the token before j). (a) The key a row of the
// repeat attends to, (b) that row's weights, (c) the symbol the head copies forward.
Exercise train_induction_exercise(const ExerciseRequest& request);

}  // namespace attnlab
