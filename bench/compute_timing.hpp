// The two computations the browser build is held to (issue 19: within 3× of the native build), timed
// the same way in both: Backend::compute on the CPU engine, all stages and diagnostics, as the GUI's
// recompute runs it. Native: bench/compute_timing_main.cpp; browser: the page's
// attnlab_web_compute_timing (web/web_platform.cpp); bench/web_bench.mjs compares them.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/presets.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

namespace attnlab::bench {

// Median milliseconds of one computation of `p`, over `runs` samples (after one untimed warm-up).
// A sample times as many computations as fill 2 ms: a browser's clock is coarsened (to 0.1 ms in
// Chromium without cross-origin isolation), and the default lesson takes microseconds.
inline double median_compute_ms(Backend& backend, const Problem& p, int runs) {
  using Clock = std::chrono::steady_clock;
  const auto ms_since = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  (void)backend.compute(p);
  long reps = 1;
  for (;;) {
    const auto t0 = Clock::now();
    for (long k = 0; k < reps; ++k) (void)backend.compute(p);
    if (ms_since(t0) >= 2.0 || reps >= (1L << 20)) break;
    reps *= 2;
  }
  std::vector<double> ms;
  for (int k = 0; k < runs; ++k) {
    const auto t0 = Clock::now();
    size_t cells = 0;
    for (long r = 0; r < reps; ++r) cells += static_cast<size_t>(backend.compute(p).weights.size());
    ms.push_back(ms_since(t0) / static_cast<double>(reps));
    if (cells == 0) return -1;  // keeps the results observable
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// {"default_lesson_ms": …, "causal_512_64_ms": …}: the default lesson, and n = m = 512, d_k = d_v =
// 64 with a causal mask, Q, K, V drawn from N(0, 1) with seed 1234.
inline std::string compute_timing_json(int runs) {
  std::unique_ptr<Backend> backend = make_cpu_backend();
  const Problem lesson = default_scenario().problem();
  Problem big;
  std::mt19937 rng(1234);
  std::normal_distribution<float> normal;
  const auto random = [&](Eigen::Index r, Eigen::Index c) {
    Matrix M(r, c);
    for (Eigen::Index i = 0; i < r; ++i)
      for (Eigen::Index j = 0; j < c; ++j) M(i, j) = normal(rng);
    return M;
  };
  big.Q = random(512, 64);
  big.K = random(512, 64);
  big.V = random(512, 64);
  big.options.mask.kind = MaskKind::Causal;
  return "{\"default_lesson_ms\": " + std::to_string(median_compute_ms(*backend, lesson, runs)) +
         ", \"causal_512_64_ms\": " + std::to_string(median_compute_ms(*backend, big, runs)) + "}";
}

}  // namespace attnlab::bench
