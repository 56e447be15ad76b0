// The online softmax's per-row sums and the row diagnostics they give: the math every streaming
// path keeps (the CPU's OnlineRow, cpu/online_row.hpp; the GPU's shaders/stream_update.comp, whose
// sums the GPU path reads back), so that every backend's streamed diagnostics are the same numbers.
#pragma once

#include "engine/attention/attention.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

// For one query row, keys arrive tile by tile. With M the largest visible score so far and
// c = 1/(s·T), every sum is kept in the frame of M (p_j = exp((s_j − M)·c) ≤ 1, and p = 1 exactly
// at the cells equal to M, the `ties`):
//   z    = Σ p_j                   (the softmax denominator)
//   rest = Σ_{s_j<M} p_j           (z − ties, summed without the 1s so small terms survive)
//   t    = Σ p_j · (s_j − M)·c      (≤ 0)
//   u2   = Σ_{s_j<M} p_j²,  u3 = Σ_{s_j<M} p_j³
// When a tile raises the maximum from M to M', every earlier p_j shrinks by α = exp((M − M')·c)
// and the old ties join the rest: z ← α z,  rest ← α (rest + ties),  u2 ← α² (u2 + ties),
// u3 ← α³ (u3 + ties),  t ← α (t + (M − M')·c · z) (each logit offset grows by (M − M')·c), and
// the output accumulator O ← α O. At the end, with a_j = p_j / z, one arg-max cell set apart
// (p = 1), R = z − 1 = rest + ties − 1, U2 = u2 + ties − 1, U3 = u3 + ties − 1 (sums over the others):
//   max weight      = 1/z
//   entropy         H = −Σ a log a = log z − t/z = log1p(R) − t/z
//   effective keys  = exp(H)
//   Jacobian norm²  = ‖diag(a) − a aᵀ‖²_F = Σ a²(1−a)² + Σ_j a_j² (Σa² − a_j²)
//                   = (R² + 2·U2 + z²·U2 − 2·z·U3 + U2²) / z⁴
//     (the arg-max cell gives R²/z⁴ and U2/z⁴; the others Σ p²(z−p)² = z²U2 − 2zU3 + U4 and
//      U2(1+U2) − U4; every large term is positive, so saturated rows keep their precision,
//      unlike Σa² − 2Σa³ + (Σa²)², which cancels to ~1e-7 there)
//   output          = O / z
struct OnlineSums {
  double z = 0, rest = 0, t = 0, u2 = 0, u3 = 0;
  double ties = 0;
};

// The row's diagnostics from its sums (the formulas above); z = 0 is a fully masked row.
inline RowDiagnostics diagnostics_from_sums(const OnlineSums& st) {
  RowDiagnostics d;
  if (!(st.z > 0)) {
    d.fully_masked = true;
    return d;
  }
  const double R = st.rest + (st.ties - 1), U2 = st.u2 + (st.ties - 1), U3 = st.u3 + (st.ties - 1);
  const double z = 1 + R, inv = 1.0 / z;
  d.max_weight = static_cast<float>(inv);
  d.saturated = static_cast<double>(d.max_weight) >= 0.99;
  const double h = std::max(0.0, std::log1p(R) - st.t * inv);
  d.entropy = static_cast<float>(h);
  d.effective_keys = static_cast<float>(std::exp(h));
  const double j2 = (R * R + 2 * U2 + z * z * U2 - 2 * z * U3 + U2 * U2) * (inv * inv) * (inv * inv);
  d.jacobian_norm = static_cast<float>(std::sqrt(std::max(0.0, j2)));
  return d;
}

}  // namespace attnlab
