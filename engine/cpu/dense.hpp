// The dense CPU path: every stage of the engine's numbers, computed on the CPU (cpu/dense.cpp).
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/path_options.hpp"

namespace attnlab {

// Computes every stage on the CPU. Throws InputError on invalid input, and when the dense n × m
// stages would not fit in memory (check_dense_fits; use compute_streaming_cpu then).
Result compute_cpu(const Problem& p);

// compute_cpu, keeping only the n × m stages named in `keep` (DenseStages, attention/path_options.hpp).
Result compute_cpu(const Problem& p, const DenseStages& keep);

}  // namespace attnlab
