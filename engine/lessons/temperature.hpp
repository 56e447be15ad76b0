// Temperature (view temperature; "The Query-Key-Value framework"): τ → 0 gives one-hot rows, τ → ∞
// uniform ones. The lesson's frames from τ_min to τ_max (which `attnlab lesson --frames-out` and
// the view's button write as PNGs: lesson_export.hpp), the limits they approach, and the curves of
// the rows' mean largest weight and entropy against τ.
#pragma once

#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/lesson_variant.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kTemperatureView = "temperature";

// A log-spaced sweep from tau_min to tau_max in `frames` steps.
struct TemperatureParams {
  double tau_min = 0.05;  // lesson.tau_min
  double tau_max = 20.0;  // lesson.tau_max
  long long frames = 41;  // lesson.frames
};
TemperatureParams temperature_params(const LessonFields& f);

// `count` temperatures spaced evenly on a log scale from lo to hi (both included).
std::vector<double> log_spaced(double lo, double hi, long long count);

struct TemperatureFrame {
  double temperature = 1;      // T
  double effective = 1;        // s · T
  Matrix weights;              // n × m
  Matrix output;               // n × d_v
  std::vector<float> max_weight;  // per row
  std::vector<float> entropy;     // per row, nats
};

// The problem recomputed on `backend` at each temperature (everything else as given). Throws InputError.
std::vector<TemperatureFrame> temperature_sweep(const Problem& p, const std::vector<double>& temperatures, Backend& backend);

// The limits the sweep approaches, n × m: τ → 0 gives hardmax (ties share), τ → ∞ gives uniform
// weights over each row's visible keys.
Matrix one_hot_limit(const Problem& p, Backend& backend);
Matrix uniform_limit(const Problem& p);

struct TemperatureNumbers : LessonNumbers {
  TemperatureParams params;
  std::vector<TemperatureFrame> frames;
  Matrix one_hot, uniform;  // n × m
  // The view's curves: the rows' mean largest weight and entropy at `curve_points` temperatures.
  std::vector<double> curve_taus;
  std::vector<float> curve_max_weight, curve_entropy;
  std::string curve_error;  // why the curves could not be computed (a backend failure)
};

TemperatureNumbers compute_temperature(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"frames": [{"temperature", "effective_temperature", "mean_max_weight", "mean_entropy",
// "distance_to_one_hot", "distance_to_uniform"}], "first_weights", "last_weights", "one_hot_limit",
// "uniform_limit"}
nlohmann::ordered_json temperature_to_json(const TemperatureNumbers& n, const Scenario& s, const Result& r,
                                           const LessonDetail& detail);

// The exercise of the temperature lesson: two queries over three to five keys, d_k = 4, T of 0.75,
// 1.5 or 3 (with √d_k = 2, no two slips then divide by the same number). (a) A row's logits, score ÷
// (√d_k · T), (b) its weights, (c) the key that takes all the weight as T → 0, (d) each key's weight
// as T → ∞.
Exercise temperature_exercise(const ExerciseRequest& request);

}  // namespace attnlab
