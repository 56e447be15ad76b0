// The Backend defaults for `attnlab bench`: the CPU's output-only fast paths, timed.
#include "engine/backend.hpp"

#include "engine/forward.hpp"

namespace attnlab {

// The bench stages of the CPU's fast path (softmax(Q Kᵀ/(s·T) + mask) V, what numpy and PyTorch
// compute): blocked tiles skipped, no diagnostics.
// (Normalizers other than softmax are streamed: fused.)
StageTimes Backend::time_stages(const Problem& p) {
  StageTimes t;
  attention_output_cpu(p, false, &t);
  return t;
}

StageTimes Backend::time_streaming(const Problem& p) {
  StageTimes t;
  attention_output_cpu(p, true, &t);
  return t;
}

std::unique_ptr<ScalingSampler> Backend::scaling_sampler() { return make_cpu_scaling_sampler(); }

}  // namespace attnlab
