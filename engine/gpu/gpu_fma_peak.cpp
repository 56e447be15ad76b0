// The GPU's FP32 FMA peak (engine/gpu/gpu_fma_peak.hpp).
#include "engine/gpu/gpu_fma_peak.hpp"

#include "engine/gpu/gl_objects.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace attnlab::gpu {

namespace {

constexpr double kGroupSize = 256;  // local_size_x of fma_peak.comp
// Per invocation and trip of the shader's loop: 16 steps of three vec4 FMAs, 2 FLOPs per lane.
constexpr double kFlopsPerTrip = 16 * 3 * 4 * 2;
constexpr double kFirstGroups = 2048, kMaxGroups = 65535;  // the largest count GL guarantees
// Trips before the dispatch grows wider: enough that starting an invocation costs little.
constexpr double kTripsBeforeGroups = 256;
constexpr double kMaxTrips = 1 << 24;
constexpr double kMaxProbeSeconds = 3;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

FmaPeak measure_fma_peak(int repetitions, double round_ms) {
  const auto start = std::chrono::steady_clock::now();
  const ComputeProgram program("fma_peak.comp");
  Buffer sink(sizeof(float));
  program.use();
  program.set("m", 0.5f);
  program.set("c", 0.5f);
  sink.bind(0);
  double groups = kFirstGroups, trips = 1;
  const auto run = [&] {
    program.set("trips", static_cast<GLint>(trips));
    glFinish();
    const auto t0 = std::chrono::steady_clock::now();
    dispatch(static_cast<GLuint>(groups));
    glFinish();
    return seconds_since(t0);
  };
  // The first dispatch also pays for any compiling the driver left for it; only quicker ones count.
  double best = run();
  const double target_s = round_ms * 1e-3;
  while (best < target_s && (trips < kMaxTrips || groups < kMaxGroups)) {
    const double grow = std::clamp(target_s / std::max(best, 1e-6), 2.0, 16.0);
    if (trips < kTripsBeforeGroups || groups >= kMaxGroups) {
      trips = std::min(kMaxTrips, std::floor(trips * grow));
    } else {
      groups = std::min(kMaxGroups, std::floor(groups * grow));
    }
    best = run();
  }
  // A GPU may still be raising its clocks (an H100 ran the first rounds at a third of its speed),
  // so rounds go on until `repetitions` in a row are none of them 2% quicker than the best before.
  for (int steady = 1; steady < repetitions && seconds_since(start) < kMaxProbeSeconds;) {
    const double t = run();
    steady = t < best / 1.02 ? 1 : steady + 1;
    best = std::min(best, t);
  }
  check_gl("measuring the GPU's FMA peak");
  FmaPeak peak;
  peak.gflops = groups * kGroupSize * trips * kFlopsPerTrip / best * 1e-9;
  peak.threads = static_cast<int>(groups * kGroupSize);
  peak.isa = "GL compute";
  peak.probe_ms = seconds_since(start) * 1e3;
  return peak;
}

}  // namespace attnlab::gpu
