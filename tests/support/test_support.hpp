// Shared helpers for the engine's unit tests: seeded random inputs and a naive reference.
#pragma once

#include "engine/attention/attention.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <string>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <utility>
#include <vector>

namespace attnlab::test {

// The sentence of the InputError `f` throws, or "" when it throws none.
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Expects `f` to throw an InputError whose sentence holds each of `parts` (the file, the field, the
// text it could not read).
inline void expect_refusal(const std::function<void()>& f, std::initializer_list<std::string> parts) {
  const std::string what = error_of(f);
  ASSERT_FALSE(what.empty()) << "accepted";
  for (const std::string& part : parts) EXPECT_NE(what.find(part), std::string::npos) << what;
}

// Bad inputs of a reader, each with words its refusal must hold.
using RefusalCases = std::vector<std::pair<std::string, std::string>>;

// Expects `read` to refuse each case's input with one line that starts with "`file`: " and holds
// the case's words.
inline void expect_each_refused(const RefusalCases& cases, const std::string& file,
                                const std::function<void(const std::string&)>& read) {
  for (const auto& c : cases) {  // not a structured binding: the browser build's clang 14 cannot capture one
    const std::string& expected = c.second;
    SCOPED_TRACE("expected: " + expected);
    const std::string msg = error_of([&] { read(c.first); });
    EXPECT_EQ(msg.rfind(file + ": ", 0), 0u) << "gave: " << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << "gave: " << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
  }
}

// The same numbers from every standard library: std::mt19937's output is fixed by the standard,
// its distributions' are not (libstdc++ and the browser build's libc++ differ), so a failure seen in
// one build is the same problem in the other.
inline int uniform_int(std::mt19937& rng, int lo, int hi) {
  const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
  const std::uint64_t wide = (static_cast<std::uint64_t>(rng()) << 32) | rng();
  return lo + static_cast<int>(wide % span);
}

// N(0, σ²) by Box–Muller on two uniform draws in (0, 1).
inline float normal(std::mt19937& rng, float sigma = 1.0f) {
  const double u1 = (static_cast<double>(rng()) + 0.5) / 4294967296.0, u2 = (static_cast<double>(rng()) + 0.5) / 4294967296.0;
  return static_cast<float>(sigma * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2));
}

inline Matrix random_matrix(std::mt19937& rng, Eigen::Index rows, Eigen::Index cols, float sigma = 1.0f) {
  Matrix M(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) M(i, j) = normal(rng, sigma);
  }
  return M;
}

// A random mask of the given kind whose parameter is valid for an n × m problem.
inline Mask random_mask(std::mt19937& rng, MaskKind kind, Eigen::Index n, Eigen::Index m) {
  Mask mask;
  mask.kind = kind;
  switch (kind) {
    case MaskKind::Padding:
    case MaskKind::Prefix: mask.param = uniform_int(rng, 0, static_cast<int>(m)); break;
    case MaskKind::Window: mask.param = uniform_int(rng, 0, static_cast<int>(std::max(n, m))); break;
    case MaskKind::Custom:
      mask.blocked.resize(n, m);
      for (Eigen::Index i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < m; ++j) mask.blocked(i, j) = uniform_int(rng, 0, 2) == 0 ? 1 : 0;
      }
      // Make sure some rows are fully blocked and some fully open when there are enough rows.
      if (n >= 3) {
        mask.blocked.row(0).setOnes();
        mask.blocked.row(1).setZero();
      }
      break;
    default: break;
  }
  return mask;
}

inline const std::vector<MaskKind>& all_mask_kinds() {
  static const std::vector<MaskKind> kinds{MaskKind::None,   MaskKind::Causal, MaskKind::Padding,
                                           MaskKind::Prefix, MaskKind::Window, MaskKind::Custom};
  return kinds;
}

inline const std::vector<Normalizer>& all_normalizers() {
  static const std::vector<Normalizer> norms{Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid,
                                             Normalizer::Hardmax};
  return norms;
}

// The seeds' definitions written out as plain loops in double precision, independent of the
// engine's code paths (different sparsemax algorithm: bisection on the threshold).
struct Reference {
  MatrixD scores, logits, weights, output;
  std::vector<bool> fully_masked;
};

inline std::vector<double> reference_normalize(Normalizer norm, const std::vector<double>& x) {
  const double inf = std::numeric_limits<double>::infinity();
  const size_t m = x.size();
  std::vector<double> w(m, 0.0);
  std::vector<size_t> open;
  for (size_t j = 0; j < m; ++j) {
    if (x[j] != -inf) open.push_back(j);
  }
  if (open.empty()) return w;
  double mx = -inf;
  for (size_t j : open) mx = std::max(mx, x[j]);
  switch (norm) {
    case Normalizer::Softmax: {
      double sum = 0;
      for (size_t j : open) sum += std::exp(x[j] - mx);
      for (size_t j : open) w[j] = std::exp(x[j] - mx) / sum;
      break;
    }
    case Normalizer::Sparsemax: {
      // Find tau with sum(max(x - tau, 0)) = 1 by bisection; the sum is decreasing in tau.
      double lo = mx - 1.0, hi = mx;
      for (int it = 0; it < 200; ++it) {
        const double mid = 0.5 * (lo + hi);
        double s = 0;
        for (size_t j : open) s += std::max(x[j] - mid, 0.0);
        (s > 1.0 ? lo : hi) = mid;
      }
      const double tau = 0.5 * (lo + hi);
      for (size_t j : open) w[j] = std::max(x[j] - tau, 0.0);
      break;
    }
    case Normalizer::Sigmoid:
      for (size_t j : open) w[j] = 1.0 / (1.0 + std::exp(-x[j]));
      break;
    case Normalizer::Hardmax: {
      double count = 0;
      for (size_t j : open) count += x[j] == mx;
      for (size_t j : open) w[j] = x[j] == mx ? 1.0 / count : 0.0;
      break;
    }
  }
  return w;
}

inline Reference naive_attention(const Problem& p) {
  const Eigen::Index n = p.Q.rows(), m = p.K.rows(), dk = p.Q.cols(), dv = p.V.cols();
  const double inf = std::numeric_limits<double>::infinity();
  const double divisor = (p.options.scale ? std::sqrt(static_cast<double>(dk)) : 1.0) * p.options.temperature;
  Reference r;
  r.scores.setZero(n, m);
  r.logits.setZero(n, m);
  r.weights.setZero(n, m);
  r.output.setZero(n, dv);
  for (Eigen::Index i = 0; i < n; ++i) {
    std::vector<double> x(static_cast<size_t>(m));
    for (Eigen::Index j = 0; j < m; ++j) {
      double s = 0;
      for (Eigen::Index k = 0; k < dk; ++k) s += static_cast<double>(p.Q(i, k)) * p.K(j, k);
      r.scores(i, j) = s;
      const bool blocked = p.options.mask.is_blocked(i, j);
      r.logits(i, j) = blocked ? -inf : s / divisor;
      x[static_cast<size_t>(j)] = r.logits(i, j);
    }
    const auto w = reference_normalize(p.options.normalizer, x);
    bool any = false;
    for (Eigen::Index j = 0; j < m; ++j) {
      r.weights(i, j) = w[static_cast<size_t>(j)];
      any |= !p.options.mask.is_blocked(i, j);
    }
    r.fully_masked.push_back(!any);
    for (Eigen::Index c = 0; c < dv; ++c) {
      double o = 0;
      for (Eigen::Index j = 0; j < m; ++j) o += r.weights(i, j) * p.V(j, c);
      r.output(i, c) = o;
    }
  }
  return r;
}

// The three-token example of the course texts: Q = K = [[1,0],[0,1],[1,1]] with the given V.
inline Problem three_tokens(const Matrix& V) {
  Problem p;
  p.Q = Matrix{{1, 0}, {0, 1}, {1, 1}};
  p.K = p.Q;
  p.V = V;
  return p;
}

// Expects row `row` of M to be `expected` within `tol`, naming the cell.
inline void expect_row(const Matrix& M, Eigen::Index row, std::initializer_list<double> expected, double tol,
                       const std::string& what) {
  ASSERT_EQ(M.cols(), static_cast<Eigen::Index>(expected.size())) << what;
  Eigen::Index j = 0;
  for (double e : expected) {
    EXPECT_NEAR(M(row, j), e, tol) << what << " row " << row + 1 << " column " << j + 1;
    ++j;
  }
}

// One line naming a problem's shape and options, for SCOPED_TRACE.
inline std::string describe(const Problem& p) {
  return "n=" + std::to_string(p.Q.rows()) + " m=" + std::to_string(p.K.rows()) + " d_k=" +
         std::to_string(p.Q.cols()) + " d_v=" + std::to_string(p.V.cols()) + " mask=" + mask_spec(p.options.mask) +
         " normalizer=" + std::string(normalizer_name(p.options.normalizer)) + " scale=" +
         (p.options.scale ? "on" : "off") + " T=" + std::to_string(p.options.temperature);
}

}  // namespace attnlab::test
