// FP32 FMA peak and OpenBLAS sgemm rate on this machine, per core and per CPU-second, so that
// docs/PERFORMANCE.md can state "% of peak" even on a shared, loaded machine. `attnlab bench` now
// measures the peak itself (engine/cpu/fma_peak.hpp, every run); this probe stays for the sgemm rates.
// Build: g++ -std=c++20 -O2 -mavx512f -fopenmp -I. bench/peak.cpp engine/text/text_format.cpp -lopenblas -o /tmp/peak
// Run:   OPENBLAS_CORETYPE=SkylakeX /tmp/peak
// Each figure is measured against the thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), which other
// processes on the machine do not inflate, and against wall time; the FMA loop runs on every core
// at once to give the machine's peak.
#include "engine/text/text_format.hpp"

#include <cblas.h>
#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

namespace {

double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
double wall_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// 16 independent accumulator chains (enough to cover 2 FMA ports × 4-cycle latency), `iters`
// rounds: 16 · 16 lanes · 2 FLOPs per round.
__attribute__((target("avx512f"))) float fma_loop(long iters) {
  __m512 acc[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (long r = 0; r < iters; ++r) {
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < 16; ++i) s = _mm512_add_ps(s, acc[i]);
  return _mm512_reduce_add_ps(s);
}

}  // namespace

int main() {
  const long iters = 50'000'000;
  const double flops_per_thread = static_cast<double>(iters) * 16 * 16 * 2;
  const int threads = omp_get_max_threads();
  std::vector<double> cpu(static_cast<size_t>(threads));
  float sink = 0;
  const double w0 = wall_seconds();
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
    const double c0 = thread_seconds();
    sink += fma_loop(iters);
    cpu[static_cast<size_t>(omp_get_thread_num())] = thread_seconds() - c0;
  }
  const double wall = wall_seconds() - w0;
  double best = 1e30;
  for (double c : cpu) best = std::min(best, c);
  std::printf("fma peak: %s GFLOP/s per core-second (best thread), %d threads: %s GFLOP/s wall (sink %s)\n",
              attnlab::fixed_decimals(flops_per_thread / best * 1e-9, 1).c_str(), threads,
              attnlab::fixed_decimals(flops_per_thread * threads / wall * 1e-9, 1).c_str(), attnlab::significant(sink, 6).c_str());

  // OpenBLAS sgemm, one thread, shapes of the engine's products.
  openblas_set_num_threads(1);
  // nt: C = A·Bᵀ with B stored n × k, as the scores' products read K (blas::gemm_nt).
  struct Shape { int m, n, k; const char* what; bool nt = false; };
  const Shape shapes[] = {{1024, 1024, 4096, "scores (1024, 4096) whole"},
                          {128, 1024, 4096, "scores (1024, 4096) 128-row strip"},
                          {512, 1024, 4096, "scores (1024, 4096) 512-row half"},
                          {1024, 4096, 1024, "output (1024, 4096) whole"},
                          {512, 4096, 1024, "output (1024, 4096) 512-row half"},
                          {1024, 1024, 512, "scores (1024, 512) whole"},
                          {128, 512, 64, "streaming tile S (128×512, d 64)"},
                          {128, 64, 512, "streaming tile PV (128×512, d 64)"},
                          // The causal quadtree's scores products at (1024, 4096) (cover_rows).
                          {512, 512, 4096, "quadtree root, (1024, 4096) causal", true},
                          {256, 256, 4096, "quadtree 256-row square", true},
                          {128, 128, 4096, "quadtree 128-row square", true},
                          {64, 64, 4096, "quadtree 64-row leaf", true}};
  for (const Shape& s : shapes) {
    std::vector<float> A(static_cast<size_t>(s.m) * s.k, 0.5f), B(static_cast<size_t>(s.k) * s.n, 0.25f),
        C(static_cast<size_t>(s.m) * s.n);
    const double flops = 2.0 * s.m * s.n * s.k;
    const int reps = std::max(3, static_cast<int>(2e10 / flops));
    const auto product = [&] {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, s.nt ? CblasTrans : CblasNoTrans, s.m, s.n, s.k, 1.0f, A.data(), s.k,
                  B.data(), s.nt ? s.k : s.n, 0.0f, C.data(), s.n);
    };
    product();
    const double c0 = thread_seconds();
    for (int r = 0; r < reps; ++r) product();
    const double c = thread_seconds() - c0;
    std::printf("sgemm 1 thread %5d×%5d×%5d (%s): %s GFLOP/s per core-second\n", s.m, s.n, s.k, s.what,
                attnlab::fixed_decimals(flops * reps / c * 1e-9, 1).c_str());
  }
  return 0;
}
