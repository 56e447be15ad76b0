// This machine's FP32 FMA peak (engine/cpu/fma_peak.hpp): a short probe on every thread at once.
#include "engine/cpu/fma_peak.hpp"

#include "engine/cpu/softmax_kernels.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <vector>

namespace attnlab {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// CPU time of the calling thread: what it ran, not what other processes took from it.
double thread_seconds() {
  timespec t{};
  // The thread's CPU time; where the system has no such clock (the browser: one thread, and
  // emscripten answers EINVAL) the monotonic clock, else every calibration would read 0 s.
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Keeps the probe's results observable, so no compiler may drop the loops.
std::atomic<float> g_sink{0};

}  // namespace

FmaPeak measure_fma_peak(int threads, int repetitions, double round_ms) {
  const auto start = std::chrono::steady_clock::now();
  const kernels::Table& k = kernels::table();
  threads = std::max(1, threads);
  repetitions = std::max(1, repetitions);
  // Rounds per repetition from a short run on this thread, on its CPU time (the quickest of three).
  std::int64_t calib = 1 << 14;
  double calib_s = 0;
  float sink = 0;
  for (;;) {
    double best = 1e30;
    for (int i = 0; i < 3; ++i) {
      const double c0 = thread_seconds();
      sink += k.fma_chains(calib, 0.5f);
      best = std::min(best, thread_seconds() - c0);
    }
    calib_s = best;
    if (calib_s >= 2e-4 || calib >= (std::int64_t{1} << 30)) break;
    calib *= 4;
  }
  const double per_round_s = std::max(calib_s, 1e-9) / static_cast<double>(calib);
  const std::int64_t rounds =
      std::max<std::int64_t>(1024, static_cast<std::int64_t>(round_ms * 1e-3 / per_round_s));

  double best = 0;  // FLOPs per second, all threads
  int ran = threads;  // OpenMP may give fewer threads than asked (OMP_THREAD_LIMIT, nesting)
  std::vector<float> sinks(static_cast<size_t>(threads), 0.0f);
  std::vector<double> rate(static_cast<size_t>(threads), 0.0);
  const double flops = static_cast<double>(rounds) * k.fma_flops_per_round();
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
#pragma omp master
    ran = omp_get_num_threads();
    for (int rep = 0; rep < repetitions; ++rep) {
      // All threads at once (a core's speed may depend on how many are busy), each timed on its
      // own CPU time, so that a round in which another process took a core is not a slow round.
#pragma omp barrier
      const double c0 = thread_seconds();
      sinks[static_cast<size_t>(t)] += k.fma_chains(rounds, 0.25f + 1e-3f * static_cast<float>(rep));
      rate[static_cast<size_t>(t)] = flops / std::max(thread_seconds() - c0, 1e-9);
#pragma omp barrier
#pragma omp master
      {
        double sum = 0;
        for (int i = 0; i < ran; ++i) sum += rate[static_cast<size_t>(i)];
        best = std::max(best, sum);
      }
    }
  }
  for (float s : sinks) sink += s;
  g_sink.store(sink, std::memory_order_relaxed);

  FmaPeak peak;
  peak.threads = ran;
  peak.gflops = best * 1e-9;
  peak.isa = k.name;
  peak.probe_ms = seconds_since(start) * 1e3;
  return peak;
}

const FmaPeak& machine_fma_peak() {
  static const FmaPeak peak = measure_fma_peak(omp_get_max_threads());
  return peak;
}

}  // namespace attnlab
