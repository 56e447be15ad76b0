// The CPU's own products (AVX-512 only), where OpenBLAS would pack its operands again for every
// call: the streaming path's two tile products, scores S = Q Kᵀ on a query tile × key tile and
// output O += P V, and the wide dense path's scores over d in slices and output over slices of
// keys. Compiled once per instruction set with the softmax kernels (engine/CMakeLists.txt); the
// other variants leave kernels::TileProducts empty and both paths call OpenBLAS.
//
// Why: at d = 64 a tile's products are short (64-deep scores, 64-wide output) and OpenBLAS spends
// a third of the time around its kernel: packing the key and value slices again for every query
// tile (sgemm_itcopy, 12% of the samples at n = 30 000, causal), packing P (sgemm_oncopy, 5%) and
// zeroing S before a beta = 0 product. These read Kᵀ and V where they lie and keep the operands
// in L1 by the order of the loops instead. At d = 4096 under a causal mask, the quadtree's small
// products ran at half of OpenBLAS's full speed for the same reason (docs/PERFORMANCE.md, "Where
// host D's causal (1024, 4096) time goes").
#include "engine/cpu/softmax_kernels.hpp"

#ifndef ATTNLAB_KERNEL_NS
#error "ATTNLAB_KERNEL_NS must name the variant (avx512, avx2, baseline)"
#endif

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab::kernels::ATTNLAB_KERNEL_NS {

#if defined(__AVX512F__)
namespace {

using I = std::int64_t;

// Scores of R query rows × one strip of 32 keys over `depth` steps of k (two vectors; m0, m1 mask the
// keys stored): acc[r][v] = Σ_k Q[r][k] · strip[k][16v + lane], 2R accumulators in registers,
// starting from S's cells where `add` (a sum over d in slices) and from zero otherwise.
template <int R>
inline void scores_micro(const float* q, I ldq, const float* strip, I depth, __mmask16 m0, __mmask16 m1, bool add,
                         float* s, I lds) {
  __m512 acc[R][2];
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    acc[r][0] = add ? _mm512_maskz_loadu_ps(m0, s + r * lds) : _mm512_setzero_ps();
    acc[r][1] = add ? _mm512_maskz_loadu_ps(m1, s + r * lds + 16) : _mm512_setzero_ps();
  }
  for (I k = 0; k < depth; ++k) {
    const __m512 b0 = _mm512_loadu_ps(strip + k * kKeyStrip);
    const __m512 b1 = _mm512_loadu_ps(strip + k * kKeyStrip + 16);
#pragma GCC unroll 12
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(q[r * ldq + k]);
      acc[r][0] = _mm512_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm512_fmadd_ps(a, b1, acc[r][1]);
    }
  }
#pragma GCC unroll 12
  for (int r = 0; r < R; ++r) {
    _mm512_mask_storeu_ps(s + r * lds, m0, acc[r][0]);
    _mm512_mask_storeu_ps(s + r * lds + 16, m1, acc[r][1]);
  }
}

// Query rows per scores micro-tile: 2 × 12 accumulators, two key vectors and a broadcast in the
// 32 vector registers; per step of k, 24 FMAs for 2 loads and 12 broadcasts.
constexpr int kScoreRows = 12;
using ScoresMicro = void (*)(const float*, I, const float*, I, __mmask16, __mmask16, bool, float*, I);
constexpr ScoresMicro kScoresTail[kScoreRows] = {nullptr,          scores_micro<1>, scores_micro<2>, scores_micro<3>,
                                                 scores_micro<4>,  scores_micro<5>, scores_micro<6>, scores_micro<7>,
                                                 scores_micro<8>,  scores_micro<9>, scores_micro<10>, scores_micro<11>};

__mmask16 lanes(I count) {
  return count >= 16 ? __mmask16(0xFFFF) : count <= 0 ? __mmask16(0) : __mmask16((1u << count) - 1);
}

// S (rows × cols, stride lds) = Q (rows × d, stride ldq) · the keys in `strips` (kernels::pack_key_strips,
// from a strip boundary). Strips outside, query rows inside: a strip (d × 32 floats, 8 KiB at
// d = 64) stays in L1 while every row of the tile meets it, and the next one is the next 8 KiB in
// memory, which the hardware prefetches (strided rows of Kᵀ, 400 KB apart at m = 100 000, it did
// not: the scores took 40% of the samples against the output product's 28%).
void tile_scores(const float* q, I ldq, const float* strips, I rows, I cols, I d, float* s, I lds) {
  for (I j = 0; j < cols; j += kKeyStrip) {
    const __mmask16 m0 = lanes(cols - j), m1 = lanes(cols - j - 16);
    const float* strip = strips + j * d;
    I i = 0;
    for (; i + kScoreRows <= rows; i += kScoreRows) {
      scores_micro<kScoreRows>(q + i * ldq, ldq, strip, d, m0, m1, false, s + i * lds + j, lds);
    }
    if (i < rows) kScoresTail[rows - i](q + i * ldq, ldq, strip, d, m0, m1, false, s + i * lds + j, lds);
  }
}

// S (rows × 32 · strips, stride lds) = or += Q (rows × depth, stride ldq) · `strips` consecutive
// strips of depth × 32 packed keys. Query rows outside, strips inside: a tile's rows meet every
// strip while they are in L1.
void strip_scores(const float* q, I ldq, const float* packed, I strips, I depth, I rows, bool add, float* s, I lds) {
  const __mmask16 all = 0xFFFF;
  for (I i = 0; i < rows; i += kScoreRows) {
    const ScoresMicro micro = rows - i >= kScoreRows ? scores_micro<kScoreRows> : kScoresTail[rows - i];
    for (I t = 0; t < strips; ++t) {
      micro(q + i * ldq, ldq, packed + t * kKeyStrip * depth, depth, all, all, add, s + i * lds + t * kKeyStrip, lds);
    }
  }
}

// Keys [0, keys) of K (rows ldk floats apart), `depth` floats each, as strips of depth × 32 (key j
// of a strip at column j), the last strip padded with zero keys: 16 × 16 blocks transposed in
// registers (unpack, then 128-bit lane shuffles), the edges one float at a time. The shuffles are
// the zero-masking forms with every lane kept: GCC 12 warns that the plain ones' undefined source
// may be used uninitialized.
void pack_strips(const float* K, I ldk, I keys, I depth, float* out) {
  const __mmask16 all = 0xFFFF;
  const __mmask8 all8 = 0xFF;
  for (I s0 = 0; s0 < keys; s0 += kKeyStrip) {
    float* strip = out + s0 * depth;
    for (I h = 0; h < kKeyStrip; h += 16) {
      const I key0 = s0 + h;
      const I count = keys - key0 >= 16 ? 16 : keys - key0 > 0 ? keys - key0 : 0;  // keys in this half
      I k = 0;
      if (count == 16) {
        for (; k + 16 <= depth; k += 16) {
          __m512 r[16], t[16];
          for (int j = 0; j < 16; ++j) r[j] = _mm512_loadu_ps(K + (key0 + j) * ldk + k);
          for (int j = 0; j < 16; j += 2) {
            t[j] = _mm512_maskz_unpacklo_ps(all, r[j], r[j + 1]);
            t[j + 1] = _mm512_maskz_unpackhi_ps(all, r[j], r[j + 1]);
          }
          for (int j = 0; j < 16; j += 4) {
            const __m512d a = _mm512_castps_pd(t[j]), b = _mm512_castps_pd(t[j + 1]);
            const __m512d c = _mm512_castps_pd(t[j + 2]), e = _mm512_castps_pd(t[j + 3]);
            r[j] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, a, c));
            r[j + 1] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, a, c));
            r[j + 2] = _mm512_castpd_ps(_mm512_maskz_unpacklo_pd(all8, b, e));
            r[j + 3] = _mm512_castpd_ps(_mm512_maskz_unpackhi_pd(all8, b, e));
          }
          for (int j = 0; j < 4; ++j) {
            t[j] = _mm512_maskz_shuffle_f32x4(all, r[j], r[4 + j], 0x88);
            t[4 + j] = _mm512_maskz_shuffle_f32x4(all, r[j], r[4 + j], 0xDD);
            t[8 + j] = _mm512_maskz_shuffle_f32x4(all, r[8 + j], r[12 + j], 0x88);
            t[12 + j] = _mm512_maskz_shuffle_f32x4(all, r[8 + j], r[12 + j], 0xDD);
          }
          for (int j = 0; j < 4; ++j) {
            r[j] = _mm512_maskz_shuffle_f32x4(all, t[j], t[8 + j], 0x88);
            r[8 + j] = _mm512_maskz_shuffle_f32x4(all, t[j], t[8 + j], 0xDD);
            r[4 + j] = _mm512_maskz_shuffle_f32x4(all, t[4 + j], t[12 + j], 0x88);
            r[12 + j] = _mm512_maskz_shuffle_f32x4(all, t[4 + j], t[12 + j], 0xDD);
          }
          for (int c = 0; c < 16; ++c) _mm512_storeu_ps(strip + (k + c) * kKeyStrip + h, r[c]);
        }
      }
      for (; k < depth; ++k) {
        for (I j = 0; j < 16; ++j) strip[k * kKeyStrip + h + j] = j < count ? K[(key0 + j) * ldk + k] : 0.0f;
      }
    }
  }
}

// O[R rows][16V columns] (+)= P[R rows][keys] · V[keys][16V columns], R·V accumulators, starting
// from O's cells where `add` and from zero otherwise.
template <int R, int V>
inline void output_micro(const float* p, I ldp, const float* v, I ldv, I keys, bool add, float* o, I ldo) {
  __m512 acc[R][V];
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < V; ++c) acc[r][c] = add ? _mm512_loadu_ps(o + r * ldo + 16 * c) : _mm512_setzero_ps();
  }
  for (I j = 0; j < keys; ++j) {
    __m512 b[V];
#pragma GCC unroll 4
    for (int c = 0; c < V; ++c) b[c] = _mm512_loadu_ps(v + j * ldv + 16 * c);
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
      const __m512 a = _mm512_set1_ps(p[r * ldp + j]);
#pragma GCC unroll 4
      for (int c = 0; c < V; ++c) acc[r][c] = _mm512_fmadd_ps(a, b[c], acc[r][c]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int c = 0; c < V; ++c) _mm512_storeu_ps(o + r * ldo + 16 * c, acc[r][c]);
  }
}

template <int V>
void output_rows(const float* p, I ldp, const float* v, I ldv, I rows, I keys, bool add, float* o, I ldo) {
  I i = 0;
  for (; i + 6 <= rows; i += 6) output_micro<6, V>(p + i * ldp, ldp, v, ldv, keys, add, o + i * ldo, ldo);
  switch (rows - i) {
    case 5: output_micro<5, V>(p + i * ldp, ldp, v, ldv, keys, add, o + i * ldo, ldo); break;
    case 4: output_micro<4, V>(p + i * ldp, ldp, v, ldv, keys, add, o + i * ldo, ldo); break;
    case 3: output_micro<3, V>(p + i * ldp, ldp, v, ldv, keys, add, o + i * ldo, ldo); break;
    case 2: output_micro<2, V>(p + i * ldp, ldp, v, ldv, keys, add, o + i * ldo, ldo); break;
    case 1: output_micro<1, V>(p + i * ldp, ldp, v, ldv, keys, add, o + i * ldo, ldo); break;
    default: break;
  }
}

// output_rows for a width of 16 to 64 columns (a multiple of 16).
void output_width(const float* p, I ldp, const float* v, I ldv, I rows, I keys, I width, bool add, float* o, I ldo) {
  switch (width >= 64 ? 4 : width / 16) {
    case 4: output_rows<4>(p, ldp, v, ldv, rows, keys, add, o, ldo); break;
    case 3: output_rows<3>(p, ldp, v, ldv, rows, keys, add, o, ldo); break;
    case 2: output_rows<2>(p, ldp, v, ldv, rows, keys, add, o, ldo); break;
    case 1: output_rows<1>(p, ldp, v, ldv, rows, keys, add, o, ldo); break;
    default: break;
  }
}

// O (rows × dv, stride ldo) += P (rows × cols, stride ldp) · V (cols × dv, stride ldv), dv a
// multiple of 16. Chunks of 64 keys outside (a 64 × 64 block of V, 16 KiB, stays in L1 while
// every row meets it), 6-row panels × 64 columns inside (24 accumulators).
void tile_output(const float* p, I ldp, const float* v, I ldv, I rows, I cols, I dv, float* o, I ldo) {
  constexpr I kKeys = 64;
  for (I j = 0; j < cols; j += kKeys) {
    const I keys = cols - j < kKeys ? cols - j : kKeys;
    for (I c = 0; c < dv; c += 64) output_width(p + j, ldp, v + j * ldv + c, ldv, rows, keys, dv - c, true, o + c, ldo);
  }
}

}  // namespace

extern const TileProducts kTileProducts;
const TileProducts kTileProducts{tile_scores, tile_output, strip_scores, pack_strips, output_width};
#else
extern const TileProducts kTileProducts;
const TileProducts kTileProducts{nullptr, nullptr, nullptr, nullptr, nullptr};
#endif

}  // namespace attnlab::kernels::ATTNLAB_KERNEL_NS
