// The GPU's FP32 multiply-add peak, measured on the current GL context (shaders/fma_peak.comp), so
// that `attnlab bench --backend gpu` gives each stage as a fraction of what the device can do at
// all, as the CPU's probe does for the CPU (engine/cpu/fma_peak.hpp).
#pragma once

#include "engine/attention/bench.hpp"

namespace attnlab::gpu {

// Runs the probe on the device behind the GL context current on this thread: workgroups of 256
// invocations, each running independent FMA chains with no memory traffic. A dispatch is timed on
// the wall clock between glFinish calls. It grows until one takes `round_ms`: longer chains first,
// then more workgroups (up to 65 535, about 60 full waves on the largest GPUs, so that a partly
// filled last wave costs under 2%). Then rounds go on until `repetitions` in a row bring no gain
// of 2% (a GPU still raising its clocks; at most 3 s in all), and the quickest counts.
// FmaPeak::threads is the number of invocations and FmaPeak::isa "GL compute". Throws GpuError when
// the driver fails. Rounds shorter than 50 ms read up to twofold low on llvmpipe.
FmaPeak measure_fma_peak(int repetitions = 5, double round_ms = 50);

}  // namespace attnlab::gpu
