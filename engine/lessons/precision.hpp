// The precision lesson (view precision; Exercise 2.3.2's answer sketch and "The Query-Key-Value framework"'s stable softmax):
// the pipeline in float32, float16 and bfloat16, emulated on the CPU by rounding the result of
// every single operation to the format, with and without max-subtraction, and with three ways
// of masking. It deliberately has none of the engine's guards, so inf and NaN show up where a
// naive implementation would produce them.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/attention/float_format.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kPrecisionView = "precision";

// How blocked cells are filled before the normalizer.
enum class MaskFill {
  NegInf,       // logits.masked_fill(mask, −∞)
  NegBig,       // logits.masked_fill(mask, −1e9): −1e9 as the format stores it
  AddNegBig,    // logits + mask · (−1e9), mask 1 = blocked ("The Query-Key-Value framework"'s formula)
};

std::string_view mask_fill_name(MaskFill f);     // "-inf", "-1e9", "+mask*-1e9"


struct PrecisionOptions {
  Precision precision = Precision::Float32;
  bool subtract_max = true;
  MaskFill fill = MaskFill::NegInf;
  double big = 1e9;  // the "large negative number" of NegBig and AddNegBig
};

struct StageHealth {
  long long inf = 0;  // cells that are ±∞ where the exact computation is finite (blocked −∞ logits are not counted)
  long long nan = 0;
};

struct PrecisionRun {
  PrecisionOptions options;
  Matrix scores;   // n × m, QKᵀ, every product and partial sum rounded
  Matrix logits;   // n × m, after ÷(s·T) and the mask fill
  Matrix exps;     // n × m, exp(logit − max) or exp(logit)
  Matrix weights;  // n × m
  Matrix output;   // n × d_v
  StageHealth scores_health, logits_health, exps_health, weights_health, output_health;
  double max_weight_error = 0;  // max |weights − reference| over finite cells, reference = the engine in double
  double max_output_error = 0;
  bool finite = true;           // weights and output have no inf/NaN
  std::string verdict;          // one sentence: what went wrong first, or "matches the reference to …"
};

// Q: n × d_k, K: m × d_k, V: m × d_v, with p.options' scale, temperature and mask (the
// normalizer is always softmax here). Fully blocked rows are not special-cased. The reference is
// the engine's float32 softmax, computed stably on `backend`.
PrecisionRun precision_run(const Problem& p, const PrecisionOptions& options, Backend& backend);

// Every combination of format × max-subtraction × mask fill, in a fixed order (format-major).
std::vector<PrecisionRun> precision_table(const Problem& p, Backend& backend);

struct PrecisionNumbers : LessonNumbers {
  std::vector<PrecisionRun> runs;  // the 18 emulated runs; empty unless complete
};

PrecisionNumbers compute_precision(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"formats": {"float32": {"max_finite", "exp_overflows_above", "exp_is_zero_below",
// "minus_1e9_stored_as"}, …}} and, complete, "runs": one line per emulated run with its verdict.
nlohmann::ordered_json precision_to_json(const PrecisionNumbers& n, const Scenario& s, const Result& r,
                                         const LessonDetail& detail);

// The exercise of the stable softmax: five tokens, causal, d_k = 4, logits large enough for e^logit to
// overflow float16. (a) A row's logits, (b) its weights worked stably (minus the row's largest logit),
// (c) how many of its exps would overflow float16 without that subtraction.
Exercise precision_exercise(const ExerciseRequest& request);

}  // namespace attnlab
