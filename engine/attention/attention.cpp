// Attention's definitions shared by every backend: normalizer names, validation of a problem, the
// normalizers in double precision, row diagnostics, and the Result every backend starts from
// (docs/ARCHITECTURE.md, glossary: stages).
#include "engine/attention/attention.hpp"

#include "engine/attention/enum_names.hpp"
#include "engine/platform/target_clones.hpp"
#include "engine/text/text_format.hpp"

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

// x·0 is 0 for finite x and NaN for ±inf and NaN, so one sum decides finiteness. One vectorized
// pass (Eigen's allFinite() took a quarter of the bench's time at d_k = 4096), which reads the
// magnitude the overflow guard needs on its way. Independent lanes, so that no vector waits on
// the one before (one accumulator ran at 4 bytes a cycle, 8% of a (1024, 4096) bench's CPU; these
// lanes 5%, what reading 48 MiB costs). Compiled for AVX-512 and AVX2 besides the baseline, whose
// sixteen SSE vectors GCC keeps in memory (7%).
ATTNLAB_TARGET_CLONES
float max_magnitude(const float* x, Eigen::Index len) {
  constexpr Eigen::Index kLanes = 64;
  float acc[kLanes] = {}, top[kLanes] = {};
  Eigen::Index i = 0;
  for (; i + kLanes <= len; i += kLanes) {
    for (Eigen::Index l = 0; l < kLanes; ++l) {
      acc[l] += x[i + l] * 0.0f;
      top[l] = std::max(top[l], std::fabs(x[i + l]));
    }
  }
  for (Eigen::Index l = 0; i + l < len; ++l) {
    acc[l] += x[i + l] * 0.0f;
    top[l] = std::max(top[l], std::fabs(x[i + l]));
  }
  float sum = 0.0f, largest = 0.0f;
  for (Eigen::Index l = 0; l < kLanes; ++l) {
    sum += acc[l];
    largest = std::max(largest, top[l]);
  }
  return sum == 0.0f ? largest : std::numeric_limits<float>::infinity();
}

namespace {

std::string shape(Eigen::Index r, Eigen::Index c) { return std::to_string(r) + "×" + std::to_string(c); }

// max |M|, after checking that every entry is finite.
float checked_magnitude(const Matrix& M, const char* name) {
  const float top = max_magnitude(M.data(), M.size());
  if (std::isfinite(top)) return top;
  for (Eigen::Index i = 0; i < M.rows(); ++i) {
    for (Eigen::Index j = 0; j < M.cols(); ++j) {
      if (!std::isfinite(M(i, j))) {
        throw InputError(std::string(name) + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " +
                         (std::isnan(M(i, j)) ? "NaN" : "infinite") + "; every entry must be a finite number");
      }
    }
  }
  return top;  // not reached: max_magnitude found an entry that is not finite
}


// The largest logit of a row; nullopt, with every weight 0, where the whole row is blocked.
std::optional<double> row_max(const double* x, float* w, Eigen::Index m) {
  double mx = -kInf;
  for (Eigen::Index j = 0; j < m; ++j) mx = std::max(mx, x[j]);
  if (mx > -kInf) return mx;
  std::fill(w, w + m, 0.0f);
  return std::nullopt;
}

// Weights from one row of logits in double precision (blocked cells are −∞). Positive infinite
// logits (overflow) win outright and share the row equally.
bool softmax_row(const double* x, float* w, Eigen::Index m) {
  const std::optional<double> top = row_max(x, w, m);
  if (!top) return false;
  const double mx = *top;
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
  const std::optional<double> top = row_max(x, w, m);
  if (!top) return false;
  const double mx = *top;
  double count = 0;
  for (Eigen::Index j = 0; j < m; ++j) count += x[j] == mx;
  for (Eigen::Index j = 0; j < m; ++j) w[j] = x[j] == mx ? static_cast<float>(1.0 / count) : 0.0f;
  return true;
}


}  // namespace

std::string_view backend_kind_name(BackendKind kind) { return kind == BackendKind::Gpu ? "gpu" : "cpu"; }

namespace {
constexpr EnumNames<Normalizer, 4> kNormalizerNames({"softmax", "sparsemax", "sigmoid", "hardmax"});
}  // namespace

std::string_view normalizer_name(Normalizer n) { return kNormalizerNames[n]; }

Normalizer parse_normalizer(std::string_view name, std::string_view where) {
  return kNormalizerNames.parse(name, where, "normalizer");
}

double parse_positive_number(std::string_view text, std::string_view where) {
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

void divide_by_pixel_cells(Matrix& sums, Eigen::Index n, Eigen::Index m) {
  const Eigen::Index hr = sums.rows(), hc = sums.cols();
  for (Eigen::Index y = 0; y < hr; ++y) {
    const double rows = static_cast<double>(pixel_first(y + 1, n, hr) - pixel_first(y, n, hr));
    for (Eigen::Index x = 0; x < hc; ++x) {
      const double cols = static_cast<double>(pixel_first(x + 1, m, hc) - pixel_first(x, m, hc));
      sums(y, x) = static_cast<float>(sums(y, x) / (rows * cols));
    }
  }
}

float fast_inverse_divisor(double divisor) {
  const float c = static_cast<float>(1.0 / divisor);
  return std::isnormal(c) ? c : 0.0f;
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

Magnitudes magnitudes(const Problem& p) {
  return {max_magnitude(p.Q.data(), p.Q.size()), max_magnitude(p.K.data(), p.K.size())};
}

Magnitudes validate_problem(const Matrix& Q, const Matrix& K, const Matrix& V, const Options& options) {
  if (Q.size() == 0) throw InputError("Q is empty; it needs at least one row and one column");
  if (K.size() == 0) throw InputError("K is empty; it needs at least one row and one column");
  if (V.size() == 0) throw InputError("V is empty; it needs at least one row and one column");
  if (Q.cols() != K.cols()) {
    throw InputError("Q is " + shape(Q.rows(), Q.cols()) + " and K is " + shape(K.rows(), K.cols()) +
                     ": Q and K must have the same number of columns (d_k)");
  }
  if (K.rows() != V.rows()) {
    throw InputError("K is " + shape(K.rows(), K.cols()) + " and V is " + shape(V.rows(), V.cols()) +
                     ": K and V must have the same number of rows (one per key)");
  }
  const Magnitudes read{checked_magnitude(Q, "Q"), checked_magnitude(K, "K")};
  checked_magnitude(V, "V");
  const double t = options.temperature;
  if (!(t > 0) || !std::isfinite(t)) {
    std::ostringstream s;
    s << "temperature: " << t << " is not allowed; it must be a finite number greater than 0";
    throw InputError(s.str());
  }
  validate_mask(options.mask, Q.rows(), K.rows(), "mask");
  if (const auto& rope = options.rope) {
    if (Q.cols() % 2 != 0) {
      throw InputError("rope: d_k = " + std::to_string(Q.cols()) +
                       " is odd, but rotary positions turn each row's pairs (x_i, x_{i+d/2}), so d_k must be even "
                       "(or switch RoPE off)");
    }
    const auto check = [](const std::vector<std::int64_t>& given, Eigen::Index rows, const char* field, const char* matrix) {
      if (!given.empty() && static_cast<Eigen::Index>(given.size()) != rows) {
        throw InputError(std::string("rope.") + field + " has " + std::to_string(given.size()) + " positions but " + matrix +
                         " has " + std::to_string(rows) + " rows");
      }
    };
    check(rope->query_positions, Q.rows(), "query_positions", "Q");
    check(rope->key_positions, K.rows(), "key_positions", "K");
    (void)rope_frequencies(rope->theta, rope->scaling, Q.cols());  // θ and the scaling, checked
  }
  return read;
}

Magnitudes validate_problem(const Problem& p) { return validate_problem(p.Q, p.K, p.V, p.options); }

std::vector<std::int64_t> rope_positions(const std::vector<std::int64_t>& given, Eigen::Index count) {
  if (!given.empty()) return given;
  std::vector<std::int64_t> positions(static_cast<size_t>(count));
  for (size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<std::int64_t>(i);
  return positions;
}

Problem rope_applied(const Problem& p) {
  const RopeSettings& rope = *p.options.rope;
  const std::vector<double> f = rope_frequencies(rope.theta, rope.scaling, p.Q.cols());
  Problem q{rope_rotated(p.Q, rope_positions(rope.query_positions, p.Q.rows()), f),
            rope_rotated(p.K, rope_positions(rope.key_positions, p.K.rows()), f), p.V, p.options};
  q.options.rope.reset();
  return q;
}

Result computed_with_rope(const Problem& p, const std::function<Result(const Problem&)>& compute) {
  if (!p.options.rope) return compute(p);
  Problem rotated = rope_applied(p);
  Result r = compute(rotated);
  r.rotated_q = std::move(rotated.Q);
  r.rotated_k = std::move(rotated.K);
  return r;
}

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


}  // namespace attnlab
