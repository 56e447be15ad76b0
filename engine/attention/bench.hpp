// What `attnlab bench` asks of a backend besides computing: stage times, the device's FMA peak and
// what runs the products. Kept apart from the compute interface (attention/backend.hpp): computing
// never needs it, and a bench never changes a number.
#pragma once

#include "engine/attention/attention.hpp"

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {

// Wall-clock milliseconds of each stage of one computation: scores (S = Q Kᵀ), softmax (of
// S / (s·T) with the mask), output (A V).
struct StageTimes {
  double scores_ms = 0;
  double softmax_ms = 0;
  double output_ms = 0;
  // GPU only: the products' kernels alone, by the GPU's own clock (timer queries); the stage's
  // wall time above adds what the driver does around them. 0 where not measured.
  double scores_kernel_ms = 0;
  double output_kernel_ms = 0;
  // Streaming runs the stages interleaved tile by tile: only the total is measured.
  bool fused = false;
  double total_ms = 0;  // always set on the CPU; a backend may leave it 0 unless fused
};

// A device's clock while the bench's timed runs ran, where the backend can read one (an NVIDIA
// card's SM clock): samples in MHz, and the clock's maximum.
struct ClockLog {
  std::vector<double> mhz;
  double top_mhz = 0;

  bool empty() const { return mhz.empty() || !(top_mhz > 0); }
  double median() const {
    std::vector<double> v = mhz;
    if (v.empty()) return 0;
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  }
  // The card ran most of the time below 90% of its top clock: the times are not what it sustains.
  bool low() const { return !empty() && median() < 0.9 * top_mhz; }
};

// A device's FP32 multiply-add peak: what `attnlab bench` gives each stage as a fraction of.
struct FmaPeak {
  double gflops = 0;     // FP32 GFLOP/s of all `threads` together (an FMA counts 2 FLOPs)
  int threads = 0;       // threads (GPU: invocations) that ran the probe at the same time
  std::string isa;       // the kernel variant that ran it: "avx512", "avx2", "baseline", "GL compute"
  double probe_ms = 0;   // how long the whole probe took
};

// How a backend chose the path that time_stages runs (the CPU measures its dense plans once per
// machine and shape, cpu/dense_plan.hpp); `chosen` is empty where there is no choice to make.
struct PathChoice {
  struct Candidate {
    std::string plan;
    double ms = 0;  // its quickest run while calibrating (or when it was cached)
  };
  std::string chosen;  // "strips 256/32", "wide 64", …
  // "measured" (now), "cached" (an earlier calibration on this machine), "default" (nothing to
  // measure: one candidate, or a run too long to measure them all) or "forced" (ATTNLAB_DENSE_PLAN)
  std::string source;
  std::string cache;  // the cache file, or why there is none
  std::vector<Candidate> candidates;
};

// The benchmarking side of one backend; make_bench (gpu/backend_choice.hpp) gives a backend's.
class BackendBench {
public:
  virtual ~BackendBench() = default;
  // What runs the matrix products, in a few words: "OpenBLAS 0.3.21 (SkylakeX kernels)",
  // "shared-memory tiles".
  virtual std::string kernels() const = 0;
  // What runs time_streaming(p), in the same few words: kernels() unless the backend streams with
  // kernels of its own ("blocks of 64 rows (stream_block.comp)").
  virtual std::string streaming_kernels(const Problem&) { return kernels(); }
  // Computes the output once, timing each stage on its own (transfers and formatting left out),
  // on the path path_choice(p) names. A backend may keep p's matrices from one call to the next
  // with the same p (the GPU's keeps them on the card), so p must not change while the bench lives.
  virtual StageTimes time_stages(const Problem& p) = 0;
  // Which path time_stages(p) runs, choosing it first where the backend measures its paths (call
  // it before timing: a calibration takes up to a few seconds once per machine and shape).
  virtual PathChoice path_choice(const Problem& p) = 0;
  // Times the streaming path once (StageTimes::fused; the n × m matrices never exist).
  virtual StageTimes time_streaming(const Problem& p) = 0;
  // Logs the device's clock from start_clock_log() to stop_clock_log(), around the timed runs
  // (an empty log where the backend has no clock to read).
  virtual void start_clock_log() {}
  virtual ClockLog stop_clock_log() { return {}; }
  // The FP32 multiply-add peak of the device, measured on the first call and kept.
  virtual const FmaPeak& fma_peak() = 0;
};

}  // namespace attnlab
