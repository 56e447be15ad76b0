// The rope lesson: rotary positions seen from the scores. Shifting every position leaves every
// score as it was; the same q and k at every pair of positions give scores that depend only on the
// distance; each pair of components turns at its own frequency; and the score of aligned vectors
// decays with distance (view rope). For `attnlab lesson rope` and the GUI's lesson view.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kRopeView = "rope";

// The positions added to every query and key; the same q and k placed at grid × grid pairs of
// positions; the head width of the distance decay.
struct RopeParams {
  long long shift = 7;          // lesson.shift
  long long grid = 8;           // lesson.grid
  long long envelope_d_k = 64;  // lesson.envelope_d_k, even
};
RopeParams rope_params(const LessonFields& f);

// Pair t of the d_k/2 pairs (t, t + d_k/2).
struct RopeFrequency {
  long long pair = 0;
  double frequency = 0;   // f_t, radians per position
  double wavelength = 0;  // 2π / f_t, positions per full turn
};

// The score at one distance Δ = query position − key position.
struct RopeDistance {
  long long distance = 0;
  double aligned = 0;  // q = k = (1, …, 1) of width envelope_d_k, divided by that width: 1 at Δ = 0
  double lesson = 0;   // the document's first query and first key at that distance
};

struct RopeLesson {
  bool rope_on = false;  // the document's own rotation; off: the lesson uses θ = 10000
  RopeSettings rope;     // the settings the numbers use
  long long d_k = 0;

  // Every query and key position moved by `shift`: the scores stay, to float32 rounding.
  long long shift = 0;
  Matrix scores, shifted_scores;  // n × m
  double max_shift_change = 0;    // max |shifted_scores − scores|
  double rounding_bound = 0;      // what float32 rounding of the rotation and the products allows

  // The document's first query row and first key row, placed at positions 0 … grid − 1 each.
  long long grid = 0;
  Matrix same_pair_scores;         // grid × grid: (i, j) is q at position i against k at position j
  double max_diagonal_spread = 0;  // the largest max − min along a diagonal i − j = constant

  std::vector<RopeFrequency> frequencies;  // d_k/2, fastest first
  Matrix unrotated_scores;                 // n × m: Q Kᵀ with RoPE off, what position changed

  long long envelope_d_k = 0;
  std::vector<RopeDistance> distances;  // Δ = 0, 1, 2, 3, 4, 6, 8, 12, … up to 4096
};

// `p` is the document's problem (RoPE on or off), `scores` its computed scores (n × m, with
// rotation when on). Throws InputError when d_k is odd or shift, grid or envelope_d_k are not
// positive (envelope_d_k even).
RopeLesson rope_lesson(const Problem& p, const Matrix& scores, long long shift, long long grid, long long envelope_d_k);

struct RopeNumbers : LessonNumbers {
  RopeLesson lesson;
};

RopeNumbers compute_rope(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// Every number of RopeLesson by its name, the frequencies as {"pair", "frequency", "wavelength"}
// (with the "fastest" and "slowest"), the distances as {"distance", "aligned", "lesson"}.
nlohmann::ordered_json rope_to_json(const RopeNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// The exercise of rotary positions: two queries and two keys of width 2 at small positions (θ = 10000,
// so each row turns by its position in radians). (a) The rotated scores of query 0, (b) query 0 with
// key 0 when every position moves by a shift, (c) the two at the same position.
Exercise rope_exercise(const ExerciseRequest& request);

}  // namespace attnlab
