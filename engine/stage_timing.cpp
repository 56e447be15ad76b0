// The Backend defaults for `attnlab bench`: the CPU's output-only fast paths, timed.
#include "engine/backend.hpp"

#include "engine/forward.hpp"

namespace attnlab {

// The bench stages of the CPU's fast path (softmax(Q Kᵀ/(s·T) + mask) V, what numpy and PyTorch
// compute): blocked tiles skipped, no diagnostics.
StageTimes Backend::time_stages(const Problem& p) {
  ForwardTimings f;
  attention_output_cpu(p, false, &f);
  StageTimes t;
  t.scores_ms = f.scores_ms;
  t.softmax_ms = f.softmax_ms;
  t.output_ms = f.output_ms;
  t.fused = f.fused;  // normalizers other than softmax: streamed
  t.total_ms = f.total_ms;
  return t;
}

StageTimes Backend::time_streaming(const Problem& p) {
  ForwardTimings f;
  attention_output_cpu(p, true, &f);
  StageTimes t;
  t.fused = true;
  t.total_ms = f.total_ms;
  return t;
}

std::unique_ptr<ScalingSampler> Backend::scaling_sampler() { return make_cpu_scaling_sampler(); }

}  // namespace attnlab
