// The dense CPU path: every stage of the engine's numbers, computed on the CPU (cpu/dense.cpp).
#pragma once

#include "engine/attention/attention.hpp"

#include <limits>

namespace attnlab {

// Computes every stage on the CPU. Throws InputError on invalid input, and when the dense n × m
// stages would not fit in memory (check_dense_fits; use compute_streaming_cpu then).
Result compute_cpu(const Problem& p);

// Which n × m stages compute_cpu keeps in the Result (the others are left 0 × 0). Every number
// kept, the output, rows and stats are the same whichever are kept; each is 4·n·m bytes.
// `compute --summary` keeps none; the full report keeps scores and weights and derives logits
// and saturation cell by cell while printing (logit_of, saturation_of).
struct DenseStages {
  bool scores = true, logits = true, weights = true, saturation = true;
};
Result compute_cpu(const Problem& p, const DenseStages& keep);

// One cell of the logits stage from its score: S / (s·T) rounded to float (±∞ where it overflows
// float), −∞ where blocked. compute_cpu fills Result::logits with exactly this.
inline float logit_of(float score, bool blocked, double divisor) {
  const double l = score / divisor;
  // The float copy saturates to ±∞ (casting an out-of-range double to float is undefined).
  if (blocked) return -std::numeric_limits<float>::infinity();
  return fits_float(l) ? static_cast<float>(l) : l > 0 ? std::numeric_limits<float>::infinity()
                                                         : -std::numeric_limits<float>::infinity();
}
// One cell of the saturation stage from its weight: a(1 − a) in float, as compute_cpu fills it.
inline float saturation_of(float a) { return a * (1.0f - a); }

}  // namespace attnlab
