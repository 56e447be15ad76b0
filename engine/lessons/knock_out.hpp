// "Knock out a head" (view knock-out; docs/MODELS.md, "Interventions"): on the built-in induction
// model, the copy's accuracy with each head's output set to zero, alone and by kind. The induction
// heads out break the copy; the previous-token heads out break it too, since the induction heads'
// keys are what the previous-token heads wrote: the two compose. Which head is which kind is found
// on the model's probe sequence by the Model window's detector, never assumed by index. The
// pipeline is an induction head made by hand, and its keys zeroed show the same failure in small.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/interventions.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kKnockOutView = "knock-out";

// The model and the sample the accuracies are measured on: this many judged sequences of its task
// drawn from the seed, the same on every machine: 470 judged positions, the sample of
// tests/unit/model/intervention_test.cpp and docs/MODELS.md. One choice of heads takes about 30 ms
// of one core, the page's seven (as is, each head alone, the two kinds) about 0.2 s.
inline constexpr std::string_view kKnockOutModel = "induction";
inline constexpr int kKnockOutSequences = 64;
inline constexpr std::uint64_t kKnockOutSeed = 71;

// The model's probe sequence (random tokens, then the same again) and the copy position whose next
// token the text quotes: the middle of the copy, where the right token is the one that followed
// this token the first time.
struct KnockOutProbe {
  std::vector<int> ids;
  int position = 0;
  int truth = 0;  // ids[position + 1]
};

// Some heads knocked out (their outputs zero at every position): the copy's accuracy over the
// sample, and the most probable next token at the probe's copy position with its probability.
struct KnockOutRun {
  std::vector<model::HeadIndex> heads;
  model::TaskAccuracy accuracy;
  int predicted = 0;
  double prob = 0;
};

// One head: its kind and score on the probe sequence, and the copy with it alone knocked out.
struct KnockOutHead {
  model::HeadIndex head;
  model::HeadVerdict verdict;
  KnockOutRun alone;
};

// The hand-made induction head of the pipeline: its last query's strongest key and weight there,
// and that weight once the keys, which a previous-token head wrote, are zero (the head knocked out).
struct HandMadeKnockOut {
  Eigen::Index row = 0, key = 0;
  double weight = 0, knocked_out_weight = 0;
};

struct KnockOutNumbers : LessonNumbers {
  HandMadeKnockOut hand_made;
  std::string model;
  int sequences = 0;
  std::uint64_t seed = 0;
  KnockOutProbe probe;
  std::vector<KnockOutHead> heads;  // layer by layer, head by head
  KnockOutRun as_is, induction_out, previous_out;
};

// "L1H0".
std::string head_label(const model::HeadIndex& h);
// "L1H0 and L1H1", "L0H0, L1H0 and L1H1", "none".
std::string head_labels(const std::vector<model::HeadIndex>& heads);
// The probe of the model's task (InputError for a model with no induction task).
KnockOutProbe knock_out_probe(const model::LanguageModel& m);
// `heads` knocked out of `m`: the accuracy over `sequences` judged sequences from `seed`, and the
// probe's prediction. What the page computes once per choice, and the GUI once per click.
KnockOutRun knock_out(const model::LanguageModel& m, const KnockOutProbe& probe, std::vector<model::HeadIndex> heads, int sequences,
                      std::uint64_t seed);
// The same on the lesson's model and sample.
KnockOutRun knock_out(const KnockOutNumbers& n, std::vector<model::HeadIndex> heads);

// Throws InputError when the result kept no weights (a streamed one) or the model cannot be opened.
KnockOutNumbers compute_knock_out(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"hand_made", "model", "sequences", "seed", "positions", "probe", "heads": [{"name", "layer",
// "head", "kind", "score", "alone_out"}], "induction_heads", "previous_heads" (names, "L1H0 and
// L1H1"), "induction_alone" ({"count", "lowest_percent", "highest_percent"} of the induction heads
// each knocked out alone), "as_is", "induction_out", "previous_out"}; a run is {"heads", "accuracy", "percent",
// "right", "counted", "predicted", "prob"}.
nlohmann::ordered_json knock_out_to_json(const KnockOutNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// The exercise of the knock-out: an induction head made by hand on symbols then a repeat (query: its
// token; key j: the token before j, which a previous-token head wrote). (a) A repeat row's weights,
// (b) its output (the copy), (c) the weight it gives the same key once the previous-token head is
// knocked out and every key is zero.
Exercise knock_out_exercise(const ExerciseRequest& request);

}  // namespace attnlab
