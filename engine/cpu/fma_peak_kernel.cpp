// The FMA peak probe's inner loop (engine/cpu/fma_peak.cpp), compiled once per instruction set with the
// softmax kernels (see engine/CMakeLists.txt) and reached through kernels::Table::fma_chains.
#include "engine/cpu/softmax_kernels.hpp"

#include <cstring>

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
namespace {

// One instruction set's vector register and the four operations the loop below needs.
#if defined(__AVX512F__)
#define ATTNLAB_SIMD(op) _mm512_##op
using Reg = __m512;
constexpr int kChains = 16;
#elif defined(__AVX2__) && defined(__FMA__)
#define ATTNLAB_SIMD(op) _mm256_##op
using Reg = __m256;
constexpr int kChains = 12;
#endif
#ifdef ATTNLAB_SIMD
Reg broadcast(float x) { return ATTNLAB_SIMD(set1_ps)(x); }
Reg mul_add(Reg x, Reg a, Reg b) { return ATTNLAB_SIMD(fmadd_ps)(x, a, b); }
Reg add(Reg x, Reg y) { return ATTNLAB_SIMD(add_ps)(x, y); }
// Not _mm512_reduce_add_ps: GCC 12 warns inside it (-Wmaybe-uninitialized on its own temporary).
void store(float* out, Reg v) { ATTNLAB_SIMD(storeu_ps)(out, v); }
#undef ATTNLAB_SIMD
#else
// Portable: the compiler's 128-bit vectors (SSE2 on any x86-64, NEON, WebAssembly SIMD), a
// multiply and an add where there is no fused instruction; still two FLOPs per lane.
typedef float Reg __attribute__((vector_size(16)));
constexpr int kChains = 12;
Reg broadcast(float x) { return Reg{x, x, x, x}; }
Reg mul_add(Reg x, Reg a, Reg b) { return x * a + b; }
Reg add(Reg x, Reg y) { return x + y; }
void store(float* out, Reg v) { std::memcpy(out, &v, sizeof v); }
#endif
constexpr int kLanes = sizeof(Reg) / sizeof(float);

}  // namespace

float fma_chains(std::int64_t rounds, float seed) {
  Reg acc[kChains];
#pragma GCC unroll 16
  for (int i = 0; i < kChains; ++i) acc[i] = broadcast(seed + static_cast<float>(i) * 1e-3f);
  const Reg a = broadcast(0.999999f), b = broadcast(1e-7f);
  for (std::int64_t r = 0; r < rounds; ++r) {
#pragma GCC unroll 16
    for (int i = 0; i < kChains; ++i) acc[i] = mul_add(acc[i], a, b);
  }
  Reg s = acc[0];
  for (int i = 1; i < kChains; ++i) s = add(s, acc[i]);
  float lanes[kLanes];
  store(lanes, s);
  float sum = 0;
  for (float v : lanes) sum += v;
  return sum;
}

int fma_flops_per_round() { return kChains * kLanes * 2; }

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
