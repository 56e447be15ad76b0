// The online-softmax lesson: a small scenario's attention computed tile by tile of keys with the
// streaming engine's own online softmax (cpu/online_row.hpp), keeping every step's running max,
// running sum and partial output so that a student can watch a row being normalised before all of
// it has been seen (view online-softmax). For `attnlab lesson online-softmax` and the GUI's lesson view.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kOnlineSoftmaxView = "online-softmax";

struct OnlineSoftmaxParams {
  long long tile = 4;  // lesson.tile: keys per tile
};
OnlineSoftmaxParams online_softmax_params(const LessonFields& f);

// One query row after one tile of keys.
struct OnlineSoftmaxRow {
  Eigen::Index visible = 0;  // keys of this tile the row sees (0: blocked or past a padding)
  // m: the largest logit the row has seen so far (−∞ before its first visible key). The engine
  // keeps the largest score M; m = M·c with c = 1/(s·T), so e^(m_old − m_new) is its α.
  double running_max = 0;
  double running_sum = 0;     // ℓ = Σ e^(L_j − m) over the keys seen so far
  std::vector<float> output;  // o = Σ e^(L_j − m) v_j over the keys seen so far (d_v), not yet ÷ ℓ
  // e^(m_old − m_new), the factor ℓ and o were multiplied by before this tile's keys were added:
  // < 1 when the tile raised the max, 1 when it did not; empty when the row had seen no key before.
  std::optional<double> rescale;
  bool max_raised() const { return rescale && *rescale < 1; }
};

// One tile of keys, [first, last] (inclusive), and every row after it.
struct OnlineSoftmaxStep {
  Eigen::Index first = 0, last = 0;
  Matrix logits;  // n × (last − first + 1): the tile's logits as computed, −∞ where blocked
  std::vector<OnlineSoftmaxRow> rows;
};

struct OnlineSoftmaxLesson {
  Eigen::Index tile = 0;  // keys per tile
  std::vector<OnlineSoftmaxStep> steps;
  Matrix output;          // n × d_v: o ÷ ℓ after the last tile (zero rows where every key is blocked)
  Matrix dense_output;    // n × d_v: the dense pipeline's output, as given
  double max_difference = 0;  // max |output − dense_output|
  long long rescales = 0;     // (row, tile) pairs whose max was raised by the tile
  long long scores_held = 0;  // n × tile: the most scores this run holds at once
  long long dense_scores = 0; // n × m: what the dense path holds
};

// Runs the online softmax over `p` one tile of `tile` keys at a time, with the streaming engine's
// per-row state and kernels. `dense_output` (n × d_v) is the dense pipeline's output, set beside
// the result. Throws InputError for what the online softmax does not compute: another normalizer
// than softmax, a temperature so large that 1/(s·T) is not a normal float, or a score that
// overflows float32 (the engine redoes such rows exactly; the lesson names the row).
OnlineSoftmaxLesson online_softmax_lesson(const Problem& p, Eigen::Index tile, const Matrix& dense_output);

// As `attnlab lesson online-softmax --format json` prints it: {"tile", "steps": [{"keys": [first,
// last], "logits", "rows": [{"visible", "running_max", "running_sum", "output", "rescale"}]}],
// "online_output", "dense_output", "max_difference", "rescales", "scores_held", "dense_scores"};
// −∞ and an absent rescale as null.
nlohmann::ordered_json online_softmax_json(const OnlineSoftmaxLesson& l);

struct OnlineSoftmaxNumbers : LessonNumbers {
  OnlineSoftmaxLesson lesson;
};

// The document's own scenario at the lesson's tile, against its result `r`'s output.
OnlineSoftmaxNumbers compute_online_softmax(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
nlohmann::ordered_json online_softmax_to_json(const OnlineSoftmaxNumbers& n, const Scenario& s, const Result& r,
                                              const LessonDetail& detail);

// The exercise of the online softmax: one query, six keys in tiles of 2, d_k = 4, whole numbers. After
// tile 2: (a) the running max m, (b) the rescale factor e^(m_old − m_new), (c) the running sum ℓ;
// then (d) the row's weights, which the online softmax ends on.
Exercise online_softmax_exercise(const ExerciseRequest& request);

}  // namespace attnlab
