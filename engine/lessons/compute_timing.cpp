// The browser build's yardstick, timed the same way natively and in the page (compute_timing.hpp).
#include "engine/lessons/compute_timing.hpp"

#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace attnlab {

double median_compute_ms(Backend& backend, const Problem& p, int runs) {
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

std::string compute_timing_json(int runs) {
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
  // Six decimals, as bench/web_bench.mjs has always read them.
  return "{\"default_lesson_ms\": " + fixed_decimals(median_compute_ms(*backend, lesson, runs), 6) +
         ", \"causal_512_64_ms\": " + fixed_decimals(median_compute_ms(*backend, big, runs), 6) + "}";
}

}  // namespace attnlab
