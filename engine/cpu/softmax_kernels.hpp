// The softmax inner loops (row max, exp, online accumulators, score moments) and the FMA peak
// probe's loop, compiled once per instruction set (AVX-512, AVX2, baseline x86-64) and chosen at
// run time from the CPU's features.
#pragma once

#include "engine/attention/score_moments.hpp"

#include <cstdint>
#include <limits>

namespace attnlab::kernels {

// The scores' moments (attention/score_moments.hpp), which Table::moments fills.
using ScoreMoments = attnlab::ScoreMoments;

// Sums over one run of p_j = exp((s_j − mx)·c), the weights before normalization in the frame of
// the row max `mx`: z = Σ p. With diagnostics, also sums over the cells below the max only (cells
// equal to mx have p = 1 exactly and are counted in `ties`), so that saturated rows, where
// everything but one cell is tiny, keep their small terms instead of losing them next to 1:
//   rest = Σ_{s<mx} p,  t = Σ p·(s − mx)·c,  u2 = Σ_{s<mx} p²,  u3 = Σ_{s<mx} p³.
struct ExpSums {
  double z = 0, rest = 0, t = 0, u2 = 0, u3 = 0;
  std::int64_t ties = 0;
};

// Keys per strip of pack_key_strips' layout.
constexpr std::int64_t kKeyStrip = 32;

// K (m × d, rows ldk floats apart) as strips of kKeyStrip keys, each strip d × kKeyStrip floats
// (key j of a strip at column j), one after the other; the last strip padded with zero keys. `out`
// gets ceil(m / kKeyStrip) · kKeyStrip · d floats. Runs on the calling thread's OpenMP team.
void pack_key_strips(const float* K, std::int64_t m, std::int64_t d, std::int64_t ldk, float* out);

// The CPU's own products on packed keys (engine/cpu/tile_kernels.cpp), where a variant has them
// (AVX-512); all null otherwise.
struct TileProducts {
  // S (rows × cols, row stride lds) = Q (rows × d, stride ldq) · the keys from `strips` on (a
  // strip boundary of pack_key_strips' layout).
  void (*scores)(const float* q, std::int64_t ldq, const float* strips, std::int64_t rows, std::int64_t cols,
                 std::int64_t d, float* s, std::int64_t lds);
  // O (rows × dv, stride ldo) += P (rows × cols, stride ldp) · V (cols × dv, stride ldv); dv must be
  // a multiple of 16.
  void (*output)(const float* p, std::int64_t ldp, const float* v, std::int64_t ldv, std::int64_t rows,
                 std::int64_t cols, std::int64_t dv, float* o, std::int64_t ldo);
  // S (rows × kKeyStrip · strips, stride lds) = Q (rows × depth, stride ldq) · `strips` strips of
  // `depth` × kKeyStrip packed keys (pack), one after the other; added to S where `add`, so that
  // a sum over d can run in slices.
  void (*strip_scores)(const float* q, std::int64_t ldq, const float* packed, std::int64_t strips, std::int64_t depth,
                       std::int64_t rows, bool add, float* s, std::int64_t lds);
  // Keys [0, keys) of K (rows ldk floats apart), `depth` floats each, in pack_key_strips' layout:
  // ceil(keys / kKeyStrip) strips of depth × kKeyStrip floats, the last padded with zero keys.
  void (*pack)(const float* K, std::int64_t ldk, std::int64_t keys, std::int64_t depth, float* out);
  // O (rows × width, stride ldo) = P (rows × keys, stride ldp) · V (keys × width, stride ldv), width
  // 16 to 64 and a multiple of 16; added to O where `add`. Every key in turn for 6 rows at a time:
  // V a block that stays in L2 (the wide dense path's packed slices of V).
  void (*panel_output)(const float* p, std::int64_t ldp, const float* v, std::int64_t ldv, std::int64_t rows,
                       std::int64_t keys, std::int64_t width, bool add, float* o, std::int64_t ldo);
};

struct Table {
  const char* name;  // "avx512", "avx2" or "baseline"
  // Adds s[0..len) to m (NaN sets m.nan; ±inf are counted as they are).
  void (*moments)(const float* s, std::int64_t len, ScoreMoments& m);
  // Largest of s[0..len) (−inf for len 0); NaN is ignored.
  float (*row_max)(const float* s, std::int64_t len);
  // p[j] = exp((s[j] − mx)·c) for j < len; returns the sums (t, u2, u3 only when `diagnostics`).
  // Requires a finite mx and a finite, normal c > 0; s[j] = −inf gives p[j] = 0.
  ExpSums (*exp_row)(const float* s, float* p, std::int64_t len, float mx, float c, bool diagnostics);
  // exp_row with diagnostics that also adds the moments of s[0..len) to m in the same pass (the
  // streaming path's visible scores); `shift` must be the largest of s[0..len), every s finite.
  ExpSums (*exp_row_moments)(const float* s, float* p, std::int64_t len, float mx, float c, float shift,
                             ScoreMoments& m);
  // Sum and max of p[0..len) (p ≥ 0).
  void (*sum_max)(const float* p, std::int64_t len, float& sum, float& max);
  // x[j] *= a.
  void (*scale)(float* x, std::int64_t len, float a);
  // The FMA peak probe (engine/cpu/fma_peak.hpp): `rounds` rounds of multiply-adds on independent
  // vector accumulators started near `seed`, fma_flops_per_round() FLOPs (an FMA counts 2) per
  // round; returns their sum so that nothing can be left out.
  float (*fma_chains)(std::int64_t rounds, float seed);
  int (*fma_flops_per_round)();
  const TileProducts* tiles;
};

// The table for this CPU (AVX-512 when it has AVX-512F/BW/DQ/VL, else AVX2+FMA, else baseline).
const Table& table();

// The tile products the streaming path and the decoder's attention run: this CPU's own (table().tiles)
// where it has them, else both null and the callers use OpenBLAS. ATTNLAB_TILE_BLAS=1 forces
// OpenBLAS, for comparisons and tests.
const TileProducts& tile_products();

// Every variant this CPU can run, best first (tests check them against each other).
int variant_count();
const Table& variant(int i);

}  // namespace attnlab::kernels
