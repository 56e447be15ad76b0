// Exercise 2.3.1 (view scaling-lab): this scenario's own draw with and without ÷√d_k, and the
// exercise's d_k sweep in small (q and K from N(0, 1), means over trials). The big runs of the
// Scaling lab and `attnlab scaling` are scaling.hpp's.
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_variant.hpp"

#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kScalingLabView = "scaling-lab";

struct ScalingLabParams {
  std::vector<long long> dk{8, 64, 512, 4096};  // lesson.dk
  long long keys = 10;                          // lesson.keys
  long long trials = 200;                       // lesson.trials
  unsigned long long seed = 42;                 // lesson.seed
};
ScalingLabParams scaling_lab_params(const LessonFields& f);

struct ScalingSweepRow {
  long long d_k = 0;
  double unscaled_std = 0, scaled_std = 0;            // std of one row's scores, mean over trials
  double unscaled_max_prob = 0, scaled_max_prob = 0;  // max softmax probability, mean over trials
};

// Section 2.3's demonstration on the CPU: per trial q (1 × d_k) and K (keys × d_k) from N(0, 1);
// means over `trials`. Small sizes only: the Scaling lab and `attnlab scaling` do the big runs.
std::vector<ScalingSweepRow> lesson_scaling_sweep(const std::vector<long long>& dk, long long keys, long long trials,
                                                  unsigned long long seed);

// The sample standard deviation (divides by count − 1), which the course text prints (torch's .std()).
double sample_std(const MomentStats& m);

struct ScalingLabNumbers : LessonNumbers {
  ScalingLabParams params;
  LessonVariant scaled, unscaled;
  std::vector<ScalingSweepRow> sweep;  // empty unless complete
  long long sweep_trials = 0;          // the trials the sweep averaged over
};

ScalingLabNumbers compute_scaling_lab(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"this_draw": {"unscaled", "scaled", "d_k"}} and, complete, the sweep with its keys, trials and seed.
nlohmann::ordered_json scaling_lab_to_json(const ScalingLabNumbers& n, const Scenario& s, const Result& r,
                                           const LessonDetail& detail);

// The exercise of Exercise 2.3.1: one query against four keys, d_k = 4, whole numbers. (a) The
// scores q·k, (b) their sample standard deviation (÷ (m − 1), as torch's .std()), (c) the same after
// ÷√d_k.
Exercise scaling_lab_exercise(const ExerciseRequest& request);

}  // namespace attnlab
