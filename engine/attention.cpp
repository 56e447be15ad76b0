// CPU attention: every stage of DESIGN.md's "The numbers", with normalizers and diagnostics.
#include "engine/attention.hpp"

#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cmath>
#include <iterator>
#include <limits>
#include <numeric>
#include <sstream>

namespace attnlab {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string shape(Eigen::Index r, Eigen::Index c) { return std::to_string(r) + "×" + std::to_string(c); }

void check_finite(const Matrix& M, const char* name) {
  if (M.allFinite()) return;
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

// Welford's running mean and sum of squared deviations (m2): E[x²] − mean² cancels
// catastrophically when the spread is small next to the mean (scores of 1e6 ± 1).
void accumulate(MomentStats& s, double& mean, double& m2, double v) {
  if (s.count == 0) s.min = s.max = v;
  s.min = std::min(s.min, v);
  s.max = std::max(s.max, v);
  ++s.count;
  const double delta = v - mean;
  mean += delta / static_cast<double>(s.count);
  m2 += delta * (v - mean);
}

void finish(MomentStats& s, double mean, double m2) {
  if (s.count == 0) return;
  s.mean = mean;
  s.std = std::sqrt(std::max(0.0, m2 / static_cast<double>(s.count)));
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

void check_dense_fits(Eigen::Index n, Eigen::Index m) {
  const double need = dense_bytes(n, m);
  const double limit = dense_memory_limit();
  if (need > limit) {
    throw InputError("n = " + std::to_string(n) + ", m = " + std::to_string(m) + ": the dense n×m stages need " +
                     human_bytes(need) + " but the limit is " + human_bytes(limit) +
                     " (half of this machine's memory); use the streaming path (--streaming or --summary)");
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

Result compute_cpu(const Problem& p) {
  validate_problem(p);
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  check_dense_fits(n, m);
  const Options& o = p.options;

  Result r;
  r.n = n;
  r.m = m;
  r.d_k = p.Q.cols();
  r.d_v = p.V.cols();
  r.scale_divisor = o.scale ? std::sqrt(static_cast<double>(r.d_k)) : 1.0;
  r.effective_temperature = r.scale_divisor * o.temperature;

  r.scores.noalias() = p.Q * p.K.transpose();
  r.logits.resize(n, m);
  r.weights.resize(n, m);
  r.saturation.resize(n, m);
  r.rows.resize(static_cast<size_t>(n));

  const double divisor = r.effective_temperature;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  double s_mean = 0, s_m2 = 0, l_mean = 0, l_m2 = 0;
  std::vector<double> x(static_cast<size_t>(m));
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < m; ++j) {
      const double s = r.scores(i, j);
      if (std::isnan(s)) {
        throw InputError("scores[" + std::to_string(i) + "][" + std::to_string(j) +
                         "] overflowed float32 (Q row · K row is not a number); scale Q or K down");
      }
      accumulate(r.stats.scores, s_mean, s_m2, s);
      if (o.mask.is_blocked(i, j)) {
        x[static_cast<size_t>(j)] = -kInf;
        r.logits(i, j) = neg_inf;
      } else {
        const double l = s / divisor;
        // −∞ means "blocked" to the normalizers, so a visible logit that overflowed (a tiny
        // temperature) stays the most negative finite double; the float copy saturates to ±∞
        // (casting an out-of-range double to float is undefined behaviour).
        x[static_cast<size_t>(j)] = std::max(l, std::numeric_limits<double>::lowest());
        r.logits(i, j) = fits_float(l) ? static_cast<float>(l) : l > 0 ? -neg_inf : neg_inf;
        accumulate(r.stats.logits, l_mean, l_m2, l);
      }
    }
    float* w = r.weights.row(i).data();
    const bool any = normalize_row(o.normalizer, x.data(), w, m);
    RowDiagnostics d = row_diagnostics(o.normalizer, w, m);
    d.fully_masked = !any;
    d.padding = o.mask.is_padding_row(i);
    r.rows[static_cast<size_t>(i)] = d;
  }
  finish(r.stats.scores, s_mean, s_m2);
  finish(r.stats.logits, l_mean, l_m2);
  r.saturation = r.weights.array() * (1.0f - r.weights.array());
  r.output.noalias() = r.weights * p.V;
  return r;
}

}  // namespace attnlab
