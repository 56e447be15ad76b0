// One interface for the engine's backends (CPU, GL compute), checked against each other in tests.
// A pure interface: each backend implements every member, so a new one never inherits the CPU's
// behaviour without saying so (docs/ARCHITECTURE.md, "How to add a backend").
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/cpu/output_only.hpp"
#include "engine/lessons/scaling.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/fma_peak.hpp"
#include "engine/cpu/streaming.hpp"

#include <memory>
#include <string>
#include <string_view>

namespace attnlab {

class Backend {
public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // "cpu" or "gpu" (the `backend` field of the command line's JSON).
  std::string_view name() const { return backend_kind_name(kind()); }
  // The device in a few words, without the kind: "OpenMP, OpenBLAS 0.3.21 (SkylakeX kernels)",
  // "llvmpipe (LLVM 15.0.6, 256 bits)".
  virtual std::string device() const = 0;
  // A one-line description for status bars and logs: "CPU (…)", "GPU: …".
  virtual std::string description() const = 0;
  // What runs the matrix products, in a few words: "OpenBLAS 0.3.21 (SkylakeX kernels)",
  // "shared-memory tiles" (`attnlab bench` reports it).
  virtual std::string kernels() const = 0;
  // Every stage of the problem. Throws InputError on bad input.
  virtual Result compute(const Problem& p) = 0;
  // compute(), keeping only the n × m stages named in `keep` where the backend can leave the
  // others out (the CPU's compute_cpu); a backend that cannot keeps everything.
  virtual Result compute_keeping(const Problem& p, const DenseStages& keep) = 0;
  // Computes every stage once, timing each stage on its own (transfers and formatting left out).
  virtual StageTimes time_stages(const Problem& p) = 0;
  // Times the streaming path once (StageTimes::fused; the n × m matrices never exist).
  virtual StageTimes time_streaming(const Problem& p) = 0;
  // The sampler for the d_k scaling demonstration on this backend.
  virtual std::unique_ptr<ScalingSampler> scaling_sampler() = 0;
  // The streaming path: output, rows, stats and the downsampled heatmap, never the n × m
  // matrices (Result::dense is false). Result::computed_by says where each part ran.
  virtual Result compute_streaming(const Problem& p, const StreamingOptions& options) = 0;
  // The FP32 multiply-add peak of the device this backend runs on, measured on the first call
  // and kept: what `attnlab bench` gives each stage as a fraction of.
  virtual const FmaPeak& fma_peak() = 0;
};

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace attnlab
