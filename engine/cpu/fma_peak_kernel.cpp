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
// One instruction set's vector, as the loop below needs it.
#if defined(__AVX512F__)
struct Vec {
  static constexpr int kChains = 16, kLanes = 16;
  __m512 v;
  static Vec all(float x) { return {_mm512_set1_ps(x)}; }
  Vec fma(Vec a, Vec b) const { return {_mm512_fmadd_ps(v, a.v, b.v)}; }
  Vec operator+(Vec o) const { return {_mm512_add_ps(v, o.v)}; }
  // Not _mm512_reduce_add_ps: GCC 12 warns inside it (-Wmaybe-uninitialized on its own temporary).
  void store(float* out) const { _mm512_storeu_ps(out, v); }
};
#elif defined(__AVX2__) && defined(__FMA__)
struct Vec {
  static constexpr int kChains = 12, kLanes = 8;
  __m256 v;
  static Vec all(float x) { return {_mm256_set1_ps(x)}; }
  Vec fma(Vec a, Vec b) const { return {_mm256_fmadd_ps(v, a.v, b.v)}; }
  Vec operator+(Vec o) const { return {_mm256_add_ps(v, o.v)}; }
  void store(float* out) const { _mm256_storeu_ps(out, v); }
};
#else
// Portable: the compiler's 128-bit vectors (SSE2 on any x86-64, NEON, WebAssembly SIMD), a
// multiply and an add where there is no fused instruction; still two FLOPs per lane.
struct Vec {
  static constexpr int kChains = 12, kLanes = 4;
  typedef float V4 __attribute__((vector_size(16)));
  V4 v;
  static Vec all(float x) { return {V4{x, x, x, x}}; }
  Vec fma(Vec a, Vec b) const { return {v * a.v + b.v}; }
  Vec operator+(Vec o) const { return {v + o.v}; }
  void store(float* out) const {
    for (int i = 0; i < kLanes; ++i) out[i] = v[i];
  }
};
#endif
constexpr int kChains = Vec::kChains;
constexpr int kLanes = Vec::kLanes;

float fma_chains(std::int64_t rounds, float seed) {
  Vec acc[kChains];
#pragma GCC unroll 16
  for (int i = 0; i < kChains; ++i) acc[i] = Vec::all(seed + static_cast<float>(i) * 1e-3f);
  const Vec a = Vec::all(0.999999f), b = Vec::all(1e-7f);
  for (std::int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i].fma(a, b);
  }
  Vec s = acc[0];
  for (int i = 1; i < kChains; ++i) s = s + acc[i];
  float lanes[kLanes];
  s.store(lanes);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}

int fma_flops_per_round() { return kChains * kLanes * 2; }

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
