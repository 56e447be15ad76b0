// The CPU backend (cpu/cpu_backend.cpp): the engine's dense and streaming CPU paths behind the
// compute interface, and its bench: the output-only fast paths of `attnlab bench`.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/attention/bench.hpp"

#include <memory>

namespace attnlab {

std::unique_ptr<Backend> make_cpu_backend();

// The CPU's bench: time_stages and time_streaming run attention_output_cpu (cpu/output_only.hpp),
// softmax(Q Kᵀ/(s·T) + mask) V as numpy and PyTorch compute it, blocked tiles skipped, no
// diagnostics, the dense one on the plan measured on this machine (cpu/dense_plan.hpp); the FMA
// peak is machine_fma_peak (cpu/fma_peak.hpp).
std::unique_ptr<BackendBench> make_cpu_bench();

}  // namespace attnlab
