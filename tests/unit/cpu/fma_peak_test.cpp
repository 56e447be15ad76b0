// The FMA peak probe (engine/cpu/fma_peak.hpp): properties that hold on any machine, not a figure.
#include "engine/cpu/fma_peak.hpp"

#include "engine/cpu/softmax_kernels.hpp"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace attnlab {
namespace {

// A plain multiply-add loop over a small array (in L1), as the compiler makes it from this file's
// flags: single thread, GFLOP/s, the quickest of a few timed passes. The timed loop is left out of
// AddressSanitizer's checks, and indexes a raw pointer (so no std::vector member is called in it): a
// check on every load and store made it 250× slower than the probe in the sanitized clang build,
// which is the sanitizer's cost and not the loop's.
__attribute__((no_sanitize_address)) void multiply_add_passes(float* x, int n, int passes) {
  const float a = 0.999999f, b = 1e-7f;
  for (int p = 0; p < passes; ++p) {
    for (int i = 0; i < n; ++i) x[i] = x[i] * a + b;
  }
}

double naive_gflops() {
  std::vector<float> x(1024, 0.5f);
  const int n = static_cast<int>(x.size()), passes = 4000;
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    multiply_add_passes(x.data(), n, passes);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  volatile float sink = x[17];
  (void)sink;
  return 2.0 * n * passes / best * 1e-9;
}

TEST(FmaPeak, IsPositiveAndNamesTheKernelThatRanIt) {
  const FmaPeak p = measure_fma_peak(2, 3, 5);
  EXPECT_TRUE(std::isfinite(p.gflops));
  EXPECT_GT(p.gflops, 0);
  EXPECT_GE(p.threads, 1);
  EXPECT_LE(p.threads, 2);
  EXPECT_EQ(p.isa, kernels::table().name);
  EXPECT_GT(p.probe_ms, 0);
}

// The default probe is short enough to run in every `bench` (5 rounds of 10 ms of CPU time;
// a generous bound for a loaded host, where the rounds wait for their cores).
TEST(FmaPeak, TheDefaultProbeTakesWellUnderASecondOfComputing) {
  const FmaPeak p = measure_fma_peak(omp_get_max_threads());
  EXPECT_LT(p.probe_ms, 2000) << p.gflops << " GFLOP/s";
}

// Nothing a plain loop does beats the peak, and the peak is within what the probe's vectors can
// add to it: its lanes (16 with AVX-512, 8 with AVX2, 4 on the baseline), × 2 for an FMA's two FLOPs
// in one instruction, × 2 FMA ports, × 4 for a loop that the sanitized build's -O1 leaves scalar,
// with a load, a store and its index beside each multiply-add. (A flat 100× failed on a Zen 5 with
// full-width AVX-512 under clang's -O1: 235 against a scalar 2.2 GFLOP/s, 107×.)
TEST(FmaPeak, IsTheSameOrderOfMagnitudeAsANaiveLoopAndNotBelowIt) {
  const double naive = naive_gflops();
  const FmaPeak p = measure_fma_peak(1);
  const double lanes = p.isa == "avx512" ? 16 : p.isa == "avx2" ? 8 : 4;
  EXPECT_GE(p.gflops, 0.8 * naive) << "peak " << p.gflops << ", naive loop " << naive << " GFLOP/s";
  EXPECT_LE(p.gflops, lanes * 2 * 2 * 4 * naive)
      << "peak " << p.gflops << " (" << p.isa << "), naive loop " << naive << " GFLOP/s";
}

// Two probes agree within a factor of 3: each is the quickest of its rounds, so load from other
// processes moves it far less than single timings. (One thread: on a loaded host a second thread's
// core may be busy for a whole probe.)
TEST(FmaPeak, RepeatedProbesAgree) {
  const FmaPeak a = measure_fma_peak(1), b = measure_fma_peak(1);
  EXPECT_LE(std::max(a.gflops, b.gflops), 3 * std::min(a.gflops, b.gflops)) << a.gflops << " vs " << b.gflops;
}

TEST(FmaPeak, MachinePeakIsMeasuredOncePerProcess) {
  const FmaPeak& first = machine_fma_peak();
  const FmaPeak& again = machine_fma_peak();
  EXPECT_EQ(&first, &again);
  EXPECT_EQ(first.threads, omp_get_max_threads());
  EXPECT_GT(first.gflops, 0);
}

// Every variant this CPU can run counts its FLOPs and returns a finite sum (the probe's chains
// stay near b / (1 − a): no overflow, no denormals).
TEST(FmaPeak, EveryVariantRunsItsChains) {
  for (int i = 0; i < kernels::variant_count(); ++i) {
    const kernels::Table& k = kernels::variant(i);
    EXPECT_GT(k.fma_flops_per_round(), 0) << k.name;
    const float s = k.fma_chains(100000, 0.5f);
    EXPECT_TRUE(std::isfinite(s)) << k.name;
    EXPECT_GT(s, 0) << k.name;
  }
}

}  // namespace
}  // namespace attnlab
