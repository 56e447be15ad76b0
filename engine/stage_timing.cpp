// The CPU pipeline split into timed stages for `attnlab bench`, and the Backend defaults.
#include "engine/backend.hpp"

#include "engine/forward.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

namespace attnlab {

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

StageTimes Backend::time_stages(const Problem& p) { return time_stages_cpu(p); }

StageTimes Backend::time_streaming(const Problem& p) {
  ForwardTimings f;
  attention_output_cpu(p, true, &f);
  StageTimes t;
  t.fused = true;
  t.total_ms = f.total_ms;
  return t;
}

std::unique_ptr<ScalingSampler> Backend::scaling_sampler() { return make_cpu_scaling_sampler(); }

StageTimes time_stages_cpu(const Problem& p) {
  validate_problem(p);
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  check_dense_fits(n, m);
  const Options& o = p.options;
  StageTimes t;

  auto start = std::chrono::steady_clock::now();
  Matrix scores(n, m);
  scores.noalias() = p.Q * p.K.transpose();
  t.scores_ms = ms_since(start);

  // Same work as compute_cpu's middle: logits, mask, normalizer, diagnostics, saturation.
  start = std::chrono::steady_clock::now();
  const double divisor = effective_temperature(p.Q.cols(), o);
  const double neg_inf = -std::numeric_limits<double>::infinity();
  Matrix logits(n, m), weights(n, m);
  std::vector<RowDiagnostics> rows(static_cast<size_t>(n));
  std::vector<double> x(static_cast<size_t>(m));
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      const bool blocked = o.mask.is_blocked(i, j);
      x[static_cast<size_t>(j)] = blocked ? neg_inf : scores(i, j) / divisor;
      logits(i, j) = static_cast<float>(x[static_cast<size_t>(j)]);
    }
    const bool any = normalize_row(o.normalizer, x.data(), weights.row(i).data(), m);
    rows[static_cast<size_t>(i)] = row_diagnostics(o.normalizer, weights.row(i).data(), m);
    rows[static_cast<size_t>(i)].fully_masked = !any;
  }
  const Matrix saturation = weights.array() * (1.0f - weights.array());
  t.softmax_ms = ms_since(start);

  start = std::chrono::steady_clock::now();
  Matrix output(n, p.V.cols());
  output.noalias() = weights * p.V;
  t.output_ms = ms_since(start);
  return t;
}

}  // namespace attnlab
