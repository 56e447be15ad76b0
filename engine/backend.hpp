// One interface for the engine's backends (CPU, GL compute), checked against each other in tests.
#pragma once

#include "engine/attention.hpp"
#include "engine/forward.hpp"
#include "engine/scaling.hpp"

#include <memory>
#include <string_view>

namespace attnlab {

class Backend {
public:
  virtual ~Backend() = default;
  // "cpu" or "gpu".
  virtual std::string_view name() const = 0;
  // A one-line description for status bars and logs ("CPU (Eigen)", "GPU: llvmpipe ...").
  virtual std::string description() const = 0;
  // Every stage of the problem. Throws InputError on bad input.
  virtual Result compute(const Problem& p) = 0;
  // compute(), keeping only the n × m stages named in `keep` when the backend can leave the
  // others out (the CPU's compute_cpu); the default keeps everything.
  virtual Result compute_keeping(const Problem& p, const DenseStages& keep) {
    (void)keep;
    return compute(p);
  }
  // Computes every stage once, timing each stage on its own (transfers and formatting left out).
  // The default times the CPU's fast path (attention_output_cpu, dense).
  virtual StageTimes time_stages(const Problem& p);
  // The sampler for the d_k scaling demonstration on this backend; the default is the CPU's.
  virtual std::unique_ptr<ScalingSampler> scaling_sampler();
  // Times the streaming path once (StageTimes::fused; the n × m matrices never exist). The
  // default runs the CPU's (attention_output_cpu with streaming).
  virtual StageTimes time_streaming(const Problem& p);
  // The streaming path: output, rows, stats and the downsampled heatmap, never the n × m
  // matrices (Result::dense is false). Backends without their own run the CPU's.
  virtual Result compute_streaming(const Problem& p, const StreamingOptions& options) {
    return compute_streaming_cpu(p, options);
  }
};

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace attnlab
