// One instruction-set variant of the softmax inner loops; CMake compiles this file once per variant
// with ATTNLAB_KERNEL_NS naming it and that variant's -m flags (see engine/CMakeLists.txt).
// Everything here has internal linkage except the table, so variants cannot leak into each other.
#include "engine/cpu/softmax_kernels.hpp"

#include "engine/cpu/exp_float.hpp"

#include <bit>
#include <cstdint>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#ifndef ATTNLAB_KERNEL_NS
#error "ATTNLAB_KERNEL_NS must name the variant (avx512, avx2, baseline)"
#endif

namespace attnlab::kernels::ATTNLAB_KERNEL_NS {

namespace {

// exp(x) for x ≤ 0 (engine/cpu/exp_float.hpp). Arguments below −87.3 (results under float's
// smallest normal) give 0, as do −inf and NaN-free underflow.
inline float exp_nonpositive(float x) {
  const bool tiny = x < -87.3f;
  x = tiny ? -87.3f : x;
  const float result = exp_in_range(x);
  return tiny ? 0.0f : result;
}

// Float partial sums over chunks this long are exact enough (≤ 256 terms per lane group);
// chunks are then added in double.
constexpr std::int64_t kChunk = 1024;

// OpenMP starts each lane of a max (min) reduction at the lowest (highest) finite float, not at
// ∓inf (clang does so; GCC happens not to), so a run of only −inf (+inf) comes out as ∓FLT_MAX.
// A scalar pass settles those rare cases.
constexpr float kFloatMax = 3.40282347e+38f;

float scalar_max(const float* s, std::int64_t len) {
  float mx = -__builtin_inff();
  for (std::int64_t j = 0; j < len; ++j) mx = s[j] > mx ? s[j] : mx;
  return mx;
}

float scalar_min(const float* s, std::int64_t len) {
  float mn = __builtin_inff();
  for (std::int64_t j = 0; j < len; ++j) mn = s[j] < mn ? s[j] : mn;
  return mn;
}

void moments(const float* s, std::int64_t len, ScoreMoments& m) {
  // Per chunk: the mean, then squared deviations from it (both in double, the chunk still in
  // cache), then a pairwise merge.
  for (std::int64_t c0 = 0; c0 < len; c0 += kChunk) {
    const std::int64_t c1 = c0 + kChunk < len ? c0 + kChunk : len;
    float mn = __builtin_inff(), mx = -__builtin_inff();
    double sum = 0;
    int nans = 0;
#pragma omp simd reduction(+ : sum, nans) reduction(min : mn) reduction(max : mx)
    for (std::int64_t j = c0; j < c1; ++j) {
      const float v = s[j];
      nans += v != v;
      sum += static_cast<double>(v);
      mn = v < mn ? v : mn;
      mx = v > mx ? v : mx;
    }
    ScoreMoments chunk;
    chunk.count = c1 - c0;
    chunk.mean = sum / static_cast<double>(c1 - c0);
    double m2 = 0;
    const double mean = chunk.mean;
#pragma omp simd reduction(+ : m2)
    for (std::int64_t j = c0; j < c1; ++j) {
      const double dv = static_cast<double>(s[j]) - mean;
      m2 += dv * dv;
    }
    chunk.m2 = m2;
    chunk.min = mn >= kFloatMax ? scalar_min(s + c0, c1 - c0) : mn;
    chunk.max = mx <= -kFloatMax ? scalar_max(s + c0, c1 - c0) : mx;
    chunk.nan = nans != 0;
    m.merge(chunk);
  }
}

float row_max(const float* s, std::int64_t len) {
  float mx = -__builtin_inff();
#pragma omp simd reduction(max : mx)
  for (std::int64_t j = 0; j < len; ++j) mx = s[j] > mx ? s[j] : mx;
  return mx <= -kFloatMax ? scalar_max(s, len) : mx;
}

// One chunk [c0, c1) of exp_row with diagnostics, added to `out`. With kMoments (finite scores
// only), also the chunk's score moments, merged into *m: deviations from `shift` (the run's largest
// score) summed in double, so that the chunk's m2 = Σd² − (Σd)²/count cancels at most by the count
// (the max is one of the scores, so the spread is at least (max − mean)²/count).
template <bool kMoments>
void exp_chunk(const float* s, float* p, std::int64_t c0, std::int64_t c1, float mx, float c, float shift, ExpSums& out,
               ScoreMoments* m) {
  float rest = 0, t = 0, u2 = 0, u3 = 0, mn = __builtin_inff();
  int ties = 0;
  double dsum = 0, dsq = 0;
#pragma omp simd reduction(+ : rest, t, u2, u3, ties, dsum, dsq) reduction(min : mn)
  for (std::int64_t j = c0; j < c1; ++j) {
    const float x = (s[j] - mx) * c;
    const float e = exp_nonpositive(x);
    p[j] = e;
    const bool top = x == 0.0f;
    const float below = top ? 0.0f : e;
    ties += top;
    rest += below;
    u2 += below * below;
    u3 += below * below * below;
    if constexpr (kMoments) {
      t += e * x;  // x is finite here
      const double d = static_cast<double>(s[j]) - static_cast<double>(shift);
      dsum += d;
      dsq += d * d;
      mn = s[j] < mn ? s[j] : mn;
    } else {
      t += e > 0.0f ? e * x : 0.0f;  // e is 0 where x is −inf: keep 0·(−inf) from becoming NaN
    }
  }
  out.z += rest + static_cast<float>(ties);
  out.rest += rest;
  out.t += t;
  out.u2 += u2;
  out.u3 += u3;
  out.ties += ties;
  if constexpr (kMoments) {
    ScoreMoments chunk;
    chunk.count = c1 - c0;
    const double count = static_cast<double>(chunk.count);
    chunk.mean = static_cast<double>(shift) + dsum / count;
    const double m2 = dsq - dsum * (dsum / count);
    chunk.m2 = m2 > 0 ? m2 : 0.0;
    chunk.min = mn;
    chunk.max = shift;
    m->merge(chunk);
  }
}

ExpSums exp_row(const float* s, float* p, std::int64_t len, float mx, float c, bool diagnostics) {
  ExpSums out;
  for (std::int64_t c0 = 0; c0 < len; c0 += kChunk) {
    const std::int64_t c1 = c0 + kChunk < len ? c0 + kChunk : len;
    if (diagnostics) {
      exp_chunk<false>(s, p, c0, c1, mx, c, 0.0f, out, nullptr);
      continue;
    }
    float z = 0;
#pragma omp simd reduction(+ : z)
    for (std::int64_t j = c0; j < c1; ++j) {
      const float e = exp_nonpositive((s[j] - mx) * c);
      p[j] = e;
      z += e;
    }
    out.z += z;
  }
  return out;
}

ExpSums exp_row_moments(const float* s, float* p, std::int64_t len, float mx, float c, float shift, ScoreMoments& m) {
  ExpSums out;
  for (std::int64_t c0 = 0; c0 < len; c0 += kChunk) {
    exp_chunk<true>(s, p, c0, c0 + kChunk < len ? c0 + kChunk : len, mx, c, shift, out, &m);
  }
  return out;
}

#if defined(__AVX2__)
// Sum and max of 8 lanes.
void reduce_sum_max(__m256 sum, __m256 mx, float& sum_out, float& max_out) {
  __m128 s4 = _mm_add_ps(_mm256_castps256_ps128(sum), _mm256_extractf128_ps(sum, 1));
  __m128 m4 = _mm_max_ps(_mm256_castps256_ps128(mx), _mm256_extractf128_ps(mx, 1));
  s4 = _mm_add_ps(s4, _mm_movehl_ps(s4, s4));
  m4 = _mm_max_ps(m4, _mm_movehl_ps(m4, m4));
  s4 = _mm_add_ss(s4, _mm_movehdup_ps(s4));
  m4 = _mm_max_ss(m4, _mm_movehdup_ps(m4));
  sum_out = _mm_cvtss_f32(s4);
  max_out = _mm_cvtss_f32(m4);
}
#endif

// The heatmap's pixels call this on runs of about m / 1024 weights, each a few vectors long, so the
// run's end matters as much as its middle: with AVX-512 and AVX2 the last partial vector is one
// masked load (p ≥ 0, so the zeros it reads elsewhere change neither the sum nor the max), where
// the vectorizer's scalar epilogue kept its sums in memory and took longer than the vectors.
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
// GCC 12's own AVX-512 headers pass _mm512_undefined_ps() (a variable initialized with itself) to
// the masked builtins, which its -Wmaybe-uninitialized then reports at every inlined max or extract.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
void sum_max(const float* p, std::int64_t len, float& sum_out, float& max_out) {
#if defined(__AVX512F__)
  __m512 sum = _mm512_setzero_ps(), mx = _mm512_setzero_ps();
  std::int64_t j = 0;
  for (; j + 16 <= len; j += 16) {
    const __m512 v = _mm512_loadu_ps(p + j);
    sum = _mm512_add_ps(sum, v);
    mx = _mm512_max_ps(mx, v);
  }
  if (j < len) {
    const __m512 v = _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << (len - j)) - 1u), p + j);
    sum = _mm512_add_ps(sum, v);
    mx = _mm512_max_ps(mx, v);
  }
  reduce_sum_max(_mm256_add_ps(_mm512_castps512_ps256(sum), _mm512_extractf32x8_ps(sum, 1)),
                 _mm256_max_ps(_mm512_castps512_ps256(mx), _mm512_extractf32x8_ps(mx, 1)), sum_out, max_out);
#elif defined(__AVX2__)
  __m256 sum = _mm256_setzero_ps(), mx = _mm256_setzero_ps();
  std::int64_t j = 0;
  for (; j + 8 <= len; j += 8) {
    const __m256 v = _mm256_loadu_ps(p + j);
    sum = _mm256_add_ps(sum, v);
    mx = _mm256_max_ps(mx, v);
  }
  if (j < len) {
    const __m256i lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(len - j)), lanes);
    const __m256 v = _mm256_maskload_ps(p + j, mask);
    sum = _mm256_add_ps(sum, v);
    mx = _mm256_max_ps(mx, v);
  }
  reduce_sum_max(sum, mx, sum_out, max_out);
#else
  float sum = 0, mx = 0;
#pragma omp simd reduction(+ : sum) reduction(max : mx)
  for (std::int64_t j = 0; j < len; ++j) {
    sum += p[j];
    mx = p[j] > mx ? p[j] : mx;
  }
  sum_out = sum;
  max_out = mx;
#endif
}
#if defined(__AVX512F__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

void scale(float* x, std::int64_t len, float a) {
#pragma omp simd
  for (std::int64_t j = 0; j < len; ++j) x[j] *= a;
}

}  // namespace

#define ATTNLAB_STR2(x) #x
#define ATTNLAB_STR(x) ATTNLAB_STR2(x)

// engine/cpu/fma_peak_kernel.cpp, compiled for the same variant.
float fma_chains(std::int64_t rounds, float seed);
int fma_flops_per_round();

// engine/cpu/tile_kernels.cpp, compiled for the same variant.
extern const TileProducts kTileProducts;

extern const Table kTable;
const Table kTable{ATTNLAB_STR(ATTNLAB_KERNEL_NS), moments, row_max, exp_row, exp_row_moments, sum_max, scale,
                   fma_chains, fma_flops_per_round, &kTileProducts};

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
