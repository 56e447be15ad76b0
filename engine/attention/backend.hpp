// The engine's compute interface: a problem in, a Result out, on the CPU (cpu/cpu_backend.hpp) or
// the GPU (gpu/gpu_backend.hpp), checked against each other in tests. Only computing: benchmarking
// is BackendBench (attention/bench.hpp), and which backend a caller gets is gpu/backend_choice.hpp.
//
// One front door per path (compute, compute_streaming) validates the problem and prepares the
// inputs of the scores once, then calls the backend's own path (run_dense, run_streaming). Those
// are pure, so a new backend implements every one and never inherits the CPU's behaviour without
// saying so (docs/ARCHITECTURE.md, "How to add a backend").
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/attention/path_options.hpp"

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

  // The dense path: every stage of the problem (Q: n × d_k, K: m × d_k, V: m × d_v), keeping the
  // n × m stages named in `keep` where the backend can leave the others out (the CPU); a backend
  // that cannot keeps everything. Throws InputError on bad input, and when the n × m stages would
  // not fit in memory (check_dense_fits).
  Result compute(const Problem& p, const DenseStages& keep = {});
  // The streaming path: output, rows, stats and the downsampled heatmap, never the n × m
  // matrices (Result::dense is false). Result::computed_by says where each part ran. Throws
  // InputError on bad input and Cancelled once options.cancel is set.
  Result compute_streaming(const Problem& p, const StreamingOptions& options = {});

protected:
  // The backend's own paths, reached only through the front doors above: `p` is validated and its
  // inputs are those the scores are computed from. A path that hands work to another backend's
  // path calls that path's function (compute_streaming_cpu), never a front door.
  virtual Result run_dense(const Problem& p, const DenseStages& keep) = 0;
  virtual Result run_streaming(const Problem& p, const StreamingOptions& options) = 0;
};

}  // namespace attnlab
