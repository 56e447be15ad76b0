// The FMA peak probe's inner loop (engine/cpu/fma_peak.cpp), compiled once per instruction set with the
// softmax kernels (see engine/CMakeLists.txt) and reached through kernels::Table::fma_chains.
#include "engine/cpu/softmax_kernels.hpp"

#if defined(__AVX512F__) || (defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

#ifndef ATTNLAB_KERNEL_NS
#error "ATTNLAB_KERNEL_NS must name the variant (avx512, avx2, baseline)"
#endif

namespace attnlab::kernels::ATTNLAB_KERNEL_NS {

// x ← x·a + b on independent accumulators, enough of them to cover every FMA port's latency
// (2 ports × 4 cycles × 1 vector = 8 in flight on current x86 cores) and few enough to stay in
// registers (32 vector registers with AVX-512, 16 with AVX2 and SSE, two of which hold a and b).
// a < 1 and b > 0 keep every value near b / (1 − a): no overflow, no denormals.
#if defined(__AVX512F__)
constexpr int kChains = 16;
constexpr int kLanes = 16;
float fma_chains(std::int64_t rounds, float seed) {
  __m512 acc[kChains];
#pragma GCC unroll 16
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(seed + static_cast<float>(i) * 1e-3f);
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  for (std::int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  }
  __m512 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm512_add_ps(s, acc[i]);
  // Not _mm512_reduce_add_ps: GCC 12 warns inside it (-Wmaybe-uninitialized on its own temporary).
  alignas(64) float lanes[kLanes];
  _mm512_store_ps(lanes, s);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}
#elif defined(__AVX2__) && defined(__FMA__)
constexpr int kChains = 12;
constexpr int kLanes = 8;
float fma_chains(std::int64_t rounds, float seed) {
  __m256 acc[kChains];
#pragma GCC unroll 12
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(seed + static_cast<float>(i) * 1e-3f);
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  for (std::int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  }
  __m256 s = acc[0];
  for (int i = 1; i < kChains; ++i) s = _mm256_add_ps(s, acc[i]);
  alignas(32) float lanes[kLanes];
  _mm256_store_ps(lanes, s);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}
#else
// Portable: the compiler's 128-bit vectors (SSE2 on any x86-64, NEON, WebAssembly SIMD), a
// multiply and an add where there is no fused instruction; still two FLOPs per lane.
constexpr int kChains = 12;
constexpr int kLanes = 4;
typedef float Vec4 __attribute__((vector_size(16)));
float fma_chains(std::int64_t rounds, float seed) {
  Vec4 acc[kChains];
  for (int i = 0; i < kChains; ++i) {
    const float v = seed + static_cast<float>(i) * 1e-3f;
    acc[i] = Vec4{v, v, v, v};
  }
  const Vec4 a = {0.999999f, 0.999999f, 0.999999f, 0.999999f}, b = {1e-7f, 1e-7f, 1e-7f, 1e-7f};
  for (std::int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 12
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * a + b;
  }
  Vec4 s = acc[0];
  for (int i = 1; i < kChains; ++i) s += acc[i];
  return s[0] + s[1] + s[2] + s[3];
}
#endif

int fma_flops_per_round() { return kChains * kLanes * 2; }

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
