// The dense CPU path: every stage of the engine's numbers (docs/ARCHITECTURE.md), strip by strip
// of query rows: scores by BLAS, the softmax kernels, diagnostics, the output by BLAS.
#include "engine/cpu/dense.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/cpu/cpu_internal.hpp"
#include "engine/cpu/softmax_kernels.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab {

namespace {

// The softmax of one dense row from float scores when that is exact enough: the visible maximum
// is finite and 1/(s·T) is a normal float. Weights are exp((s − max)·c) / Σ, which is the stable
// softmax of the logits s·c. Returns false (weights untouched) when the double path must decide.
bool fast_softmax_row(const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s, float* w, float c,
                      std::vector<float>& masked) {
  if (c == 0) return false;
  const kernels::Table& k = kernels::table();
  Eigen::Index first = 0, last = m;
  const float* src = s;
  if (mask.kind == MaskKind::Custom) {
    for (Eigen::Index j = 0; j < m; ++j) masked[static_cast<size_t>(j)] = mask.blocked(i, j) ? -std::numeric_limits<float>::infinity() : s[j];
    src = masked.data();
  } else {
    mask.visible_range(i, m, first, last);
  }
  if (first >= last) return false;
  const float mx = k.row_max(src + first, last - first);
  if (!std::isfinite(mx)) return false;  // +inf wins outright; all −inf is fully masked: double path
  const kernels::ExpSums sums = k.exp_row(src + first, w + first, last - first, mx, c, false);
  std::fill(w, w + first, 0.0f);
  std::fill(w + last, w + m, 0.0f);
  k.scale(w + first, last - first, static_cast<float>(1.0 / sums.z));
  return true;
}

// Row strips for the dense products: large enough for sgemm to run near peak, enough of them to
// share among threads.
constexpr Eigen::Index kStrip = 128;

}  // namespace

Result compute_cpu(const Problem& p) { return compute_cpu(p, DenseStages{}); }

Result compute_cpu(const Problem& p, const DenseStages& keep) {
  const Magnitudes read = validate_problem(p);
  // Engine code that asks the CPU directly (the lessons' variants) gets the rotary positions too.
  if (p.options.rope) return computed_with_rope(p, [&](const Problem& q) { return compute_cpu(q, keep); });
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  check_dense_fits(n, m);
  const Options& o = p.options;

  Result r = result_header(p);
  const Eigen::Index dk = r.d_k, dv = r.d_v;

  if (keep.scores) r.scores.resize(n, m);
  if (keep.logits) r.logits.resize(n, m);
  if (keep.weights) r.weights.resize(n, m);
  if (keep.saturation) r.saturation.resize(n, m);
  r.rows.resize(static_cast<size_t>(n));
  r.output.resize(n, dv);
  Matrix Kt;  // S = Q Kᵀ as a plain product: OpenBLAS runs it faster
  detail::transpose_into(p.K, Kt);

  const double divisor = r.effective_temperature;
  const float c = fast_inverse_divisor(divisor);
  const Eigen::Index strips = (n + kStrip - 1) / kStrip;
  // Moments per strip, merged in strip order afterwards: the printed statistics do not depend on
  // which thread took which strip (they did in their last digits when threads merged as they went).
  std::vector<kernels::ScoreMoments> strip_all(static_cast<size_t>(strips)), strip_visible(static_cast<size_t>(strips));
  const ScoreOverflowGuard guard(p, read);  // p's own Q and K: rotary positions returned above
  // Strip by strip: scores, the row loop, output. A stage that is not kept lives in a per-thread
  // strip buffer (kStrip × m) with the same row stride, so every product and every row sees the
  // very same operands either way.
#pragma omp parallel
  {
    std::vector<double> x(static_cast<size_t>(m));
    std::vector<float> masked(o.mask.kind == MaskKind::Custom ? static_cast<size_t>(m) : 0);
    std::vector<float> s_buf(keep.scores ? 0 : static_cast<size_t>(kStrip * m));
    std::vector<float> w_buf(keep.weights ? 0 : static_cast<size_t>(kStrip * m));
#pragma omp for schedule(dynamic, 1)
    for (Eigen::Index b = 0; b < strips; ++b) {
      const Eigen::Index r0 = b * kStrip, rows = std::min(kStrip, n - r0);
      kernels::ScoreMoments& my_all = strip_all[static_cast<size_t>(b)];
      kernels::ScoreMoments& my_visible = strip_visible[static_cast<size_t>(b)];
      float* S = keep.scores ? r.scores.row(r0).data() : s_buf.data();
      float* W = keep.weights ? r.weights.row(r0).data() : w_buf.data();
      blas::gemm_nn(rows, m, dk, p.Q.row(r0).data(), dk, Kt.data(), m, 0.0f, S, m);
      for (Eigen::Index i = r0; i < r0 + rows; ++i) {
        float* s = S + (i - r0) * m;
        float* w = W + (i - r0) * m;
        const bool recomputed = guard.apply(i, 0, m, s) > 0;
        kernels::ScoreMoments row_all;
        kernels::table().moments(s, m, row_all);
        my_all.merge(row_all);
        detail::visible_moments(o.mask, i, m, s, 0, m, my_visible);
        if (keep.logits) {
          float* l = r.logits.row(i).data();
          for (Eigen::Index j = 0; j < m; ++j) l[j] = logit_of(s[j], o.mask.is_blocked(i, j), divisor);
        }
        bool any = true;
        if (o.normalizer != Normalizer::Softmax || !fast_softmax_row(o.mask, i, m, s, w, c, masked)) {
          detail::normalizer_logits(o.normalizer, o.mask, i, m, s, divisor, x.data());
          any = normalize_row(o.normalizer, x.data(), w, m);
        }
        RowDiagnostics d = row_diagnostics(o.normalizer, w, m);
        d.fully_masked = !any;
        d.padding = o.mask.is_padding_row(i);
        d.scores_recomputed = recomputed;
        r.rows[static_cast<size_t>(i)] = d;
        if (keep.saturation) {
          float* sat = r.saturation.row(i).data();
          for (Eigen::Index j = 0; j < m; ++j) sat[j] = saturation_of(w[j]);
        }
      }
      blas::gemm_nn(rows, dv, m, W, m, p.V.data(), dv, 0.0f, r.output.row(r0).data(), dv);
    }
  }
  kernels::ScoreMoments all, visible;
  for (Eigen::Index b = 0; b < strips; ++b) {
    all.merge(strip_all[static_cast<size_t>(b)]);
    visible.merge(strip_visible[static_cast<size_t>(b)]);
  }
  r.stats = stats_from_moments(all, visible, divisor);
  return r;
}


}  // namespace attnlab
