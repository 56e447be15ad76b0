// Temperature sweep, convex hull, cost table and the self-attention twin.
#include "engine/lessons/lesson_math.hpp"

#include "engine/cpu/dense.hpp"
#include "engine/lessons/random.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace attnlab {

namespace {


double cross(const Point2& o, const Point2& a, const Point2& b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

}  // namespace

std::vector<double> log_spaced(double lo, double hi, long long count) {
  if (!(lo > 0) || !(hi >= lo) || count < 1) {
    throw InputError("temperature sweep: needs 0 < lo ≤ hi and at least one frame");
  }
  std::vector<double> out;
  if (count == 1) return {lo};
  const double a = std::log(lo), b = std::log(hi);
  for (long long k = 0; k < count; ++k) {
    out.push_back(std::exp(a + (b - a) * static_cast<double>(k) / static_cast<double>(count - 1)));
  }
  out.front() = lo;
  out.back() = hi;
  return out;
}

std::vector<TemperatureFrame> temperature_sweep(const Problem& p, const std::vector<double>& temperatures) {
  std::vector<TemperatureFrame> frames;
  for (const double t : temperatures) {
    Problem q = p;
    q.options.temperature = t;
    const Result r = compute_cpu(q);
    TemperatureFrame f;
    f.temperature = t;
    f.effective = r.effective_temperature;
    f.weights = r.weights;
    f.output = r.output;
    for (const auto& row : r.rows) {
      f.max_weight.push_back(row.max_weight);
      f.entropy.push_back(row.entropy);
    }
    frames.push_back(std::move(f));
  }
  return frames;
}

Matrix one_hot_limit(const Problem& p) {
  Problem q = p;
  q.options.normalizer = Normalizer::Hardmax;
  return compute_cpu(q).weights;
}

Matrix uniform_limit(const Problem& p) {
  const Eigen::Index n = p.Q.rows(), m = p.K.rows();
  Matrix U = Matrix::Zero(n, m);
  for (Eigen::Index i = 0; i < n; ++i) {
    Eigen::Index visible = 0;
    for (Eigen::Index j = 0; j < m; ++j) visible += !p.options.mask.is_blocked(i, j);
    for (Eigen::Index j = 0; j < m; ++j) {
      if (!p.options.mask.is_blocked(i, j)) U(i, j) = 1.0f / static_cast<float>(visible);
    }
  }
  return U;
}

std::vector<Point2> convex_hull(std::vector<Point2> pts) {
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  if (pts.size() < 3) return pts;
  std::vector<Point2> hull(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, t = k + 1; i > 0; --i) {
    while (k >= t && cross(hull[k - 2], hull[k - 1], pts[i - 1]) <= 0) --k;
    hull[k++] = pts[i - 1];
  }
  hull.resize(k - 1);
  return hull;
}

bool inside_convex_hull(const Point2& p, const std::vector<Point2>& hull, double tolerance) {
  auto dist_to_segment = [](const Point2& q, const Point2& a, const Point2& b) {
    const double dx = b[0] - a[0], dy = b[1] - a[1];
    const double len2 = dx * dx + dy * dy;
    double t = len2 > 0 ? ((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / len2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    return std::hypot(q[0] - (a[0] + t * dx), q[1] - (a[1] + t * dy));
  };
  if (hull.empty()) return false;
  if (hull.size() == 1) return std::hypot(p[0] - hull[0][0], p[1] - hull[0][1]) <= tolerance;
  if (hull.size() == 2) return dist_to_segment(p, hull[0], hull[1]) <= tolerance;
  bool inside = true;
  for (size_t i = 0; i < hull.size(); ++i) {
    const Point2& a = hull[i];
    const Point2& b = hull[(i + 1) % hull.size()];
    if (cross(a, b, p) < 0) inside = false;
  }
  if (inside) return true;
  for (size_t i = 0; i < hull.size(); ++i) {
    if (dist_to_segment(p, hull[i], hull[(i + 1) % hull.size()]) <= tolerance) return true;
  }
  return false;
}

GeometryView geometry_view(const Problem& p, const Result& r) {
  if (p.Q.cols() != 2 || p.V.cols() != 2) {
    throw InputError("geometry: the plane needs d_k = d_v = 2, but d_k = " + std::to_string(p.Q.cols()) +
                     " and d_v = " + std::to_string(p.V.cols()));
  }
  GeometryView g;
  auto rows = [](const Matrix& M) {
    std::vector<Point2> out;
    for (Eigen::Index i = 0; i < M.rows(); ++i) out.push_back({M(i, 0), M(i, 1)});
    return out;
  };
  g.queries = rows(p.Q);
  g.keys = rows(p.K);
  g.values = rows(p.V);
  g.outputs = rows(r.output);
  g.hull = convex_hull(g.values);
  // Float32 weights sum to 1 only within rounding; allow for it relative to the values' size.
  double scale = 1;
  for (const auto& v : g.values) scale = std::max({scale, std::fabs(v[0]), std::fabs(v[1])});
  for (Eigen::Index i = 0; i < r.output.rows(); ++i) {
    const bool blocked_row = r.rows[static_cast<size_t>(i)].fully_masked;
    g.inside.push_back(!blocked_row && inside_convex_hull(g.outputs[static_cast<size_t>(i)], g.hull, 1e-5 * scale));
  }
  return g;
}

MachineMemory machine_memory() {
  MachineMemory m;
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGE_SIZE);
  m.physical_bytes = pages > 0 && page_size > 0 ? static_cast<double>(pages) * static_cast<double>(page_size) : 0;
  m.dense_limit_bytes = dense_memory_limit();
  return m;
}

std::vector<CostRow> cost_table(const std::vector<long long>& ns, long long d_k) {
  const double limit = dense_memory_limit();
  std::vector<CostRow> out;
  for (const long long n : ns) {
    CostRow c;
    c.n = n;
    const double nd = static_cast<double>(n);
    c.entries = nd * nd;
    c.bytes_fp32 = 4 * c.entries;
    c.bytes_fp16 = 2 * c.entries;
    c.flops = 2.0 * c.entries * static_cast<double>(d_k) * 2.0;
    c.engine_dense_bytes = dense_bytes(n, n);
    c.fits_dense = c.engine_dense_bytes <= limit;
    out.push_back(c);
  }
  return out;
}

Scenario self_attention_twin(const Scenario& cross) {
  Scenario s = cross;
  s.Q = cross.K;
  s.query_tokens = cross.key_tokens;
  s.title = "Self-attention over the keys' sequence";
  s.lesson = LessonSpec{};
  // A mask written for n × m may not fit m × m; self-attention here is bidirectional.
  if (s.options.mask.kind == MaskKind::Custom) s.options.mask = Mask{};
  return s;
}

std::vector<ScalingSweepRow> lesson_scaling_sweep(const std::vector<long long>& dk, long long keys, long long trials,
                                                  unsigned long long seed) {
  if (keys < 2 || trials < 1) throw InputError("scaling sweep: needs at least 2 keys and 1 trial");
  std::vector<ScalingSweepRow> out;
  NormalRandom rng(seed);
  std::vector<double> s(static_cast<size_t>(keys));
  for (const long long d : dk) {
    if (d < 1) throw InputError("scaling sweep: d_k must be at least 1");
    ScalingSweepRow row;
    row.d_k = d;
    const double root = std::sqrt(static_cast<double>(d));
    for (long long t = 0; t < trials; ++t) {
      std::vector<double> q(static_cast<size_t>(d));
      for (auto& x : q) x = rng.normal();
      double mean = 0;
      for (auto& x : s) {
        x = 0;
        for (long long l = 0; l < d; ++l) x += q[static_cast<size_t>(l)] * rng.normal();
        mean += x;
      }
      mean /= static_cast<double>(keys);
      double var = 0, mx = -1e300;
      for (const double x : s) {
        var += (x - mean) * (x - mean);
        mx = std::max(mx, x);
      }
      // torch's .std() is the sample standard deviation (n − 1), as in Section 2.3's printout.
      const double sd = std::sqrt(var / static_cast<double>(keys - 1));
      double z_un = 0, z_sc = 0;
      for (const double x : s) {
        z_un += std::exp(x - mx);
        z_sc += std::exp((x - mx) / root);
      }
      row.unscaled_std += sd;
      row.scaled_std += sd / root;
      row.unscaled_max_prob += 1.0 / z_un;
      row.scaled_max_prob += 1.0 / z_sc;
    }
    const double tr = static_cast<double>(trials);
    row.unscaled_std /= tr;
    row.scaled_std /= tr;
    row.unscaled_max_prob /= tr;
    row.scaled_max_prob /= tr;
    out.push_back(row);
  }
  return out;
}

}  // namespace attnlab
