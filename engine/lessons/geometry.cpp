// The plane of d_k = d_v = 2: points, the values' convex hull, outputs inside it.
#include "engine/lessons/geometry.hpp"

#include "engine/lessons/exercise_draw.hpp"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

double hull_cross(const Point2& o, const Point2& a, const Point2& b) {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}

nlohmann::ordered_json point_list(const std::vector<Point2>& pts) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& p : pts) out.push_back({p[0], p[1]});
  return out;
}

}  // namespace

std::vector<Point2> convex_hull(std::vector<Point2> pts) {
  std::sort(pts.begin(), pts.end());
  pts.erase(std::unique(pts.begin(), pts.end()), pts.end());
  if (pts.size() < 3) return pts;
  std::vector<Point2> hull(2 * pts.size());
  size_t k = 0;
  for (size_t i = 0; i < pts.size(); ++i) {
    while (k >= 2 && hull_cross(hull[k - 2], hull[k - 1], pts[i]) <= 0) --k;
    hull[k++] = pts[i];
  }
  for (size_t i = pts.size() - 1, t = k + 1; i > 0; --i) {
    while (k >= t && hull_cross(hull[k - 2], hull[k - 1], pts[i - 1]) <= 0) --k;
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
    if (hull_cross(a, b, p) < 0) inside = false;
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

GeometryNumbers compute_geometry(const Scenario& s, const Result& r, Backend&, const LessonDetail&) {
  GeometryNumbers n;
  n.geometry = geometry_view(s.problem(), r);
  return n;
}

nlohmann::ordered_json geometry_to_json(const GeometryNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  const GeometryView& g = n.geometry;
  nlohmann::ordered_json inside = nlohmann::ordered_json::array();
  for (const bool b : g.inside) inside.push_back(b);
  return {{"queries", point_list(g.queries)}, {"keys", point_list(g.keys)},   {"values", point_list(g.values)},
          {"outputs", point_list(g.outputs)}, {"values_hull", point_list(g.hull)}, {"inside_hull", inside}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise geometry_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const MatrixD V = rnd.integers(3, 2, -2, 3);
    // Twice the triangle's area: the values must span a triangle, not a segment.
    const double area2 = (V(1, 0) - V(0, 0)) * (V(2, 1) - V(0, 1)) - (V(2, 0) - V(0, 0)) * (V(1, 1) - V(0, 1));
    if (std::abs(area2) < 4) return false;
    const MatrixD given_q = rnd.integers(3, 2, -1, 2), given_k = rnd.integers(3, 2, -1, 2);
    d.set_given(given_q, given_k, V, exercise_options(true, 1), s.query_tokens, s.key_tokens);
    const Exercise& e = d.exercise();
    const Eigen::Index row = rnd.integer(0, 2);
    const std::string at = query_label(e, row);
    if (!d.clear_argmax(row, 0.05)) return false;
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + at + ", " + to_decimals(2) + ": they are ≥ 0 and sum to 1.");
    d.row_part(PartKind::OutputRow, row, output_decimals(V), "The output of " + at + ", a point: Σ weight · value point, " +
               to_decimals(output_decimals(V)) + ". It lies inside the triangle of the values.");
    d.row_part(PartKind::ArgmaxKey, row, 0, "Which key's value pulls that output most (the largest weight)? Its number, counted from 0.");
    return true;
  });
}

}  // namespace attnlab
