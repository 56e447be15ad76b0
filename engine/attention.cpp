// CPU attention: every stage of DESIGN.md's "The numbers", with normalizers and diagnostics.
#include "engine/attention.hpp"

#include "engine/attention_internal.hpp"
#include "engine/blas.hpp"
#include "engine/softmax_kernels.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <sstream>

namespace attnlab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shape(Eigen::Index r, Eigen::Index c) { return std::to_string(r) + "×" + std::to_string(c); }

// True when every entry is finite: x·0 is 0 for finite x and NaN for ±inf and NaN, so one sum
// decides. A vectorized pass (Eigen's allFinite() took a quarter of the bench's time at d_k = 4096).
bool all_finite(const float* x, Eigen::Index len) {
  float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
  for (Eigen::Index i = 0; i < len; ++i) acc += x[i] * 0.0f;
  return acc == 0.0f;
}

void check_finite(const Matrix& M, const char* name) {
  if (all_finite(M.data(), M.size())) return;
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (!std::isfinite(M(i, j))) {
        throw InputError(std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " +
                         (std::isnan(M(i, j)) ? "NaN" : "infinite") + "; every entry must be a finite number");
      }
    }
  }
}

// "11.8 GiB", "2.3 TiB": fixed-point, so that a person reads the size at a glance.
std::string human_bytes(double bytes) {
  static constexpr const char* units[] = {"MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = bytes / (1024.0 * 1024);
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

// Weights from one row of logits in double precision (blocked cells are −∞). Positive infinite
// logits (overflow) win outright and share the row equally.
bool softmax_row(const double* x, float* w, Eigen::Index m) {
  double mx = -kInf;
  for (Eigen::Index j = 0; j < m; ++j) mx = std::max(mx, x[j]);
  if (mx == -kInf) {
    std::fill(w, w + m, 0.0f);
    return false;
  }
  if (mx == kInf) {
    double count = 0;
    for (Eigen::Index j = 0; j < m; ++j) count += x[j] == kInf;
    for (Eigen::Index j = 0; j < m; ++j) w[j] = x[j] == kInf ? static_cast<float>(1.0 / count) : 0.0f;
    return true;
  }
  double sum = 0;
  for (Eigen::Index j = 0; j < m; ++j) sum += std::exp(x[j] - mx);
  for (Eigen::Index j = 0; j < m; ++j) w[j] = static_cast<float>(std::exp(x[j] - mx) / sum);
  return true;
}

// Euclidean projection of the unblocked logits onto the probability simplex (Martins & Astudillo).
bool sparsemax_row(const double* x, float* w, Eigen::Index m) {
  std::vector<double> z;
  z.reserve(static_cast<size_t>(m));
  bool any_pos_inf = false;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (x[j] != -kInf) z.push_back(x[j]);
    any_pos_inf |= x[j] == kInf;
  }
  if (z.empty()) {
    std::fill(w, w + m, 0.0f);
    return false;
  }
  if (any_pos_inf) return softmax_row(x, w, m);  // the infinite cells take everything either way
  std::sort(z.begin(), z.end(), std::greater<>());
  // Work relative to the largest logit (sparsemax is shift invariant): with logits like 1e30,
  // z − 1 == z in double and the threshold would be lost.
  const double top = z[0];
  for (double& v : z) v -= top;
  double cumulative = 0, tau = -1.0;  // the largest logit is always in the support
  for (size_t k = 0; k < z.size(); ++k) {
    cumulative += z[k];
    const double candidate = (cumulative - 1.0) / static_cast<double>(k + 1);
    if (z[k] > candidate) tau = candidate;
    else break;
  }
  for (Eigen::Index j = 0; j < m; ++j) {
    w[j] = x[j] == -kInf ? 0.0f : static_cast<float>(std::max(x[j] - top - tau, 0.0));
  }
  return true;
}

bool sigmoid_row(const double* x, float* w, Eigen::Index m) {
  bool any = false;
  for (Eigen::Index j = 0; j < m; ++j) {
    if (x[j] == -kInf) {
      w[j] = 0.0f;
      continue;
    }
    any = true;
    // Written so that neither branch overflows.
    w[j] = static_cast<float>(x[j] >= 0 ? 1.0 / (1.0 + std::exp(-x[j])) : std::exp(x[j]) / (1.0 + std::exp(x[j])));
  }
  return any;
}

bool hardmax_row(const double* x, float* w, Eigen::Index m) {
  double mx = -kInf;
  for (Eigen::Index j = 0; j < m; ++j) mx = std::max(mx, x[j]);
  if (mx == -kInf) {
    std::fill(w, w + m, 0.0f);
    return false;
  }
  double count = 0;
  for (Eigen::Index j = 0; j < m; ++j) count += x[j] == mx;
  for (Eigen::Index j = 0; j < m; ++j) w[j] = x[j] == mx ? static_cast<float>(1.0 / count) : 0.0f;
  return true;
}


}  // namespace

std::string_view normalizer_name(Normalizer n) {
  switch (n) {
    case Normalizer::Softmax: return "softmax";
    case Normalizer::Sparsemax: return "sparsemax";
    case Normalizer::Sigmoid: return "sigmoid";
    case Normalizer::Hardmax: return "hardmax";
  }
  return "softmax";
}

Normalizer parse_normalizer(std::string_view name, std::string_view where) {
  for (Normalizer n : {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax}) {
    if (name == normalizer_name(n)) return n;
  }
  throw InputError(std::string(where) + ": unknown normalizer '" + std::string(name) +
                   "' (expected softmax, sparsemax, sigmoid or hardmax)");
}

double parse_temperature(std::string_view text, std::string_view where) {
  double t = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), t);
  if (ec == std::errc::result_out_of_range) {
    throw InputError(std::string(where) + ": " + std::string(text) +
                     " is outside the range of a double; it must be a finite number greater than 0");
  }
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
    throw InputError(std::string(where) + ": '" + std::string(text) + "' is not a number");
  }
  if (!(t > 0) || !std::isfinite(t)) {
    throw InputError(std::string(where) + ": " + std::string(text) +
                     " is not allowed; it must be a finite number greater than 0");
  }
  return t;
}

double effective_temperature(Eigen::Index d_k, const Options& options) {
  const double s = options.scale ? std::sqrt(static_cast<double>(d_k)) : 1.0;
  return s * options.temperature;
}

double dense_bytes(Eigen::Index n, Eigen::Index m) {
  return 4.0 * static_cast<double>(n) * static_cast<double>(m) * sizeof(float);
}

double dense_memory_limit() {
  // Tests make small problems "too large" through this (MiB), to check the streaming fallbacks.
  if (const char* e = std::getenv("ATTNLAB_DENSE_LIMIT_MIB")) {
    const double mib = std::atof(e);
    if (mib > 0) return mib * 1024 * 1024;
  }
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 4.0 * 1024 * 1024 * 1024;
  return 0.5 * static_cast<double>(pages) * static_cast<double>(page_size);
}

void validate_problem(const Problem& p) {
  if (p.Q.size() == 0) throw InputError("Q is empty; it needs at least one row and one column");
  if (p.K.size() == 0) throw InputError("K is empty; it needs at least one row and one column");
  if (p.V.size() == 0) throw InputError("V is empty; it needs at least one row and one column");
  if (p.Q.cols() != p.K.cols()) {
    throw InputError("Q is " + shape(p.Q.rows(), p.Q.cols()) + " and K is " + shape(p.K.rows(), p.K.cols()) +
                     ": Q and K must have the same number of columns (d_k)");
  }
  if (p.K.rows() != p.V.rows()) {
    throw InputError("K is " + shape(p.K.rows(), p.K.cols()) + " and V is " + shape(p.V.rows(), p.V.cols()) +
                     ": K and V must have the same number of rows (one per key)");
  }
  check_finite(p.Q, "Q");
  check_finite(p.K, "K");
  check_finite(p.V, "V");
  const double t = p.options.temperature;
  if (!(t > 0) || !std::isfinite(t)) {
    std::ostringstream s;
    s << "temperature: " << t << " is not allowed; it must be a finite number greater than 0";
    throw InputError(s.str());
  }
  validate_mask(p.options.mask, p.Q.rows(), p.K.rows(), "mask");
}

std::string format_bytes(double bytes) { return human_bytes(bytes); }

bool dense_fits(Eigen::Index n, Eigen::Index m) { return dense_bytes(n, m) <= dense_memory_limit(); }

void check_dense_fits(Eigen::Index n, Eigen::Index m) {
  const double need = dense_bytes(n, m);
  const double limit = dense_memory_limit();
  if (need > limit) {
    throw InputError("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ": the dense n×m stages need " +
                     human_bytes(need) + " but the limit is " + human_bytes(limit) +
                     " (half of this machine's memory); use --summary (streaming, no n×m matrices) or export a "
                     "downsampled heatmap");
  }
}

bool normalize_row(Normalizer normalizer, const double* x, float* w, Eigen::Index m) {
  switch (normalizer) {
    case Normalizer::Softmax: return softmax_row(x, w, m);
    case Normalizer::Sparsemax: return sparsemax_row(x, w, m);
    case Normalizer::Sigmoid: return sigmoid_row(x, w, m);
    case Normalizer::Hardmax: return hardmax_row(x, w, m);
  }
  return softmax_row(x, w, m);
}

RowDiagnostics row_diagnostics(Normalizer normalizer, const float* w, Eigen::Index m) {
  RowDiagnostics d;
  double total = 0, mx = 0, sum_sq = 0, sum_4 = 0, diag_term = 0, sig_term = 0;
  long long support = 0;
  for (Eigen::Index j = 0; j < m; ++j) {
    const double a = w[j];
    total += a;
    mx = std::max(mx, a);
    sum_sq += a * a;
    sum_4 += a * a * a * a;
    diag_term += a * a * (1 - a) * (1 - a);
    sig_term += (a * (1 - a)) * (a * (1 - a));
    support += a > 0;
  }
  d.max_weight = static_cast<float>(mx);
  d.saturated = mx >= 0.99;
  if (total > 0) {
    double h = 0;
    for (Eigen::Index j = 0; j < m; ++j) {
      const double p = w[j] / total;
      if (p > 0) h -= p * std::log(p);
    }
    d.entropy = static_cast<float>(std::max(0.0, h));
    d.effective_keys = static_cast<float>(std::exp(std::max(0.0, h)));
  }
  switch (normalizer) {
    case Normalizer::Softmax:
      // ‖diag(a) − a aᵀ‖²_F = Σ a²(1−a)² + (Σa²)² − Σa⁴
      d.jacobian_norm = static_cast<float>(std::sqrt(std::max(0.0, diag_term + sum_sq * sum_sq - sum_4)));
      break;
    case Normalizer::Sparsemax:
      // J = diag(s) − s sᵀ/k on the support (k cells): ‖J‖²_F = k − 1.
      d.jacobian_norm = support > 0 ? static_cast<float>(std::sqrt(static_cast<double>(support - 1))) : 0.0f;
      break;
    case Normalizer::Sigmoid: d.jacobian_norm = static_cast<float>(std::sqrt(sig_term)); break;
    case Normalizer::Hardmax: d.jacobian_norm = 0; break;
  }
  return d;
}

namespace detail {

// In 32 × 32 blocks that stay in L1: Eigen's element-by-element transpose of a 1024 × 4096 K cost
// the bench ~8% of its time.
void transpose_into(const Matrix& K, Matrix& out) {
  const Eigen::Index m = K.rows(), d = K.cols();
  out.resize(d, m);
  constexpr Eigen::Index kBlock = 32;
  for (Eigen::Index i0 = 0; i0 < m; i0 += kBlock) {
    const Eigen::Index i1 = std::min(m, i0 + kBlock);
    for (Eigen::Index j0 = 0; j0 < d; j0 += kBlock) {
      const Eigen::Index j1 = std::min(d, j0 + kBlock);
      for (Eigen::Index j = j0; j < j1; ++j) {
        float* dst = out.data() + j * m;
        for (Eigen::Index i = i0; i < i1; ++i) dst[i] = K.data()[i * d + j];
      }
    }
  }
}

Stats stats_from_moments(const kernels::ScoreMoments& all, const kernels::ScoreMoments& visible, double divisor) {
  Stats st;
  const auto fill = [](MomentStats& out, const kernels::ScoreMoments& in, double d) {
    out.count = in.count;
    if (in.count == 0) return;
    out.min = in.min / d;
    out.max = in.max / d;
    out.mean = in.mean / d;
    out.std = std::sqrt(std::max(0.0, in.m2 / static_cast<double>(in.count))) / d;
  };
  fill(st.scores, all, 1.0);
  fill(st.logits, visible, divisor);
  return st;
}

void visible_moments(const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s, Eigen::Index j0,
                     Eigen::Index j1, kernels::ScoreMoments& out) {
  if (mask.kind != MaskKind::Custom) {
    Eigen::Index first = 0, last = m;
    mask.visible_range(i, m, first, last);
    first = std::max(first, j0);
    last = std::min(last, j1);
    if (first < last) kernels::table().moments(s + (first - j0), last - first, out);
    return;
  }
  // Custom masks: the visible cells of the row gathered, then one run.
  std::vector<float> run;
  run.reserve(static_cast<size_t>(j1 - j0));
  for (Eigen::Index j = j0; j < j1; ++j) {
    if (!mask.blocked(i, j)) run.push_back(s[j - j0]);
  }
  kernels::table().moments(run.data(), static_cast<std::int64_t>(run.size()), out);
}

float fast_inverse_divisor(double divisor) {
  const float c = static_cast<float>(1.0 / divisor);
  return std::isnormal(c) ? c : 0.0f;
}

void normalizer_logits(Normalizer normalizer, const Mask& mask, Eigen::Index i, Eigen::Index m, const float* s,
                       double divisor, double* x) {
  float top = -std::numeric_limits<float>::infinity();
  if (normalizer != Normalizer::Sigmoid) {
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!mask.is_blocked(i, j)) top = std::max(top, s[j]);
    }
  }
  const bool shift = std::isfinite(top);
  for (Eigen::Index j = 0; j < m; ++j) {
    if (mask.is_blocked(i, j)) x[j] = -kInf;
    else if (top == std::numeric_limits<float>::infinity()) x[j] = s[j] == top ? 0.0 : -kInf;
    // −∞ means "blocked" to the normalizers: a visible logit that overflowed (a tiny temperature)
    // stays the most negative finite double.
    else x[j] = std::max((shift ? static_cast<double>(s[j]) - top : static_cast<double>(s[j])) / divisor,
                         std::numeric_limits<double>::lowest());
  }
}

ScoreOverflowGuard::ScoreOverflowGuard(const Problem& p) : p_(&p) {
  if (p.Q.size() == 0 || p.K.size() == 0) return;
  const double dk = static_cast<double>(p.Q.cols());
  // Every partial sum of d_k products, in any order and with or without fused multiply-adds, is
  // at most Σ|q·k| · (1 + 2^−24)^(d_k + 1) ≤ Σ|q·k| / (1 − (d_k + 1)·2^−24) in magnitude.
  risk_ = std::max(0.0, static_cast<double>(std::numeric_limits<float>::max()) * (1.0 - (dk + 1) * 0x1p-24));
  k_max_ = p.K.cwiseAbs().maxCoeff();
  active_ = static_cast<double>(p.Q.cwiseAbs().maxCoeff()) * k_max_ * dk >= risk_;
  if (active_) {
    key_max_.resize(static_cast<size_t>(p.K.rows()));
    for (Eigen::Index j = 0; j < p.K.rows(); ++j) key_max_[static_cast<size_t>(j)] = p.K.row(j).cwiseAbs().maxCoeff();
  }
}

Eigen::Index ScoreOverflowGuard::apply(Eigen::Index i, Eigen::Index j0, Eigen::Index j1, float* s) const {
  if (!active_) return 0;
  const Eigen::Index dk = p_->Q.cols();
  const float* q = p_->Q.row(i).data();
  const double q_max = p_->Q.row(i).cwiseAbs().maxCoeff(), dkd = static_cast<double>(dk);
  if (q_max * k_max_ * dkd < risk_) return 0;
  Eigen::Index redone = 0;
  for (Eigen::Index j = j0; j < j1; ++j) {
    if (q_max * key_max_[static_cast<size_t>(j)] * dkd < risk_) continue;
    const float* k = p_->K.row(j).data();
    double exact = 0, magnitude = 0;
    for (Eigen::Index l = 0; l < dk; ++l) {
      const double term = static_cast<double>(q[l]) * static_cast<double>(k[l]);
      exact += term;
      magnitude += std::fabs(term);
    }
    if (magnitude < risk_) continue;
    constexpr float inf = std::numeric_limits<float>::infinity();
    s[j - j0] = fits_float(exact) ? static_cast<float>(exact) : exact > 0 ? inf : -inf;
    ++redone;
  }
  return redone;
}

}  // namespace detail

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

Result result_header(const Problem& p) {
  Result r;
  r.n = p.Q.rows();
  r.m = p.K.rows();
  r.d_k = p.Q.cols();
  r.d_v = p.V.cols();
  r.scale_divisor = p.options.scale ? std::sqrt(static_cast<double>(r.d_k)) : 1.0;
  r.effective_temperature = r.scale_divisor * p.options.temperature;
  return r;
}

Result compute_cpu(const Problem& p) { return compute_cpu(p, DenseStages{}); }

Result compute_cpu(const Problem& p, const DenseStages& keep) {
  validate_problem(p);
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
  const float c = detail::fast_inverse_divisor(divisor);
  const Eigen::Index strips = (n + kStrip - 1) / kStrip;
  // Moments per strip, merged in strip order afterwards: the printed statistics do not depend on
  // which thread took which strip (they did in their last digits when threads merged as they went).
  std::vector<kernels::ScoreMoments> strip_all(static_cast<size_t>(strips)), strip_visible(static_cast<size_t>(strips));
  const detail::ScoreOverflowGuard guard(p);
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
  r.stats = detail::stats_from_moments(all, visible, divisor);
  return r;
}

}  // namespace attnlab
