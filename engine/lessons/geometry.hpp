// Geometry (view geometry; "13.2 Scaled dot-product attention"): with d_k = d_v = 2 the queries,
// keys and values are points in a plane, and every output lies inside the convex hull of the values.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kGeometryView = "geometry";

using Point2 = std::array<double, 2>;

// Convex hull, counter-clockwise, no repeated or collinear points (Andrew's monotone chain).
std::vector<Point2> convex_hull(std::vector<Point2> points);
// True when p is inside or on the hull, within `tolerance` (distance) of its edges.
bool inside_convex_hull(const Point2& p, const std::vector<Point2>& hull, double tolerance = 1e-6);

struct GeometryView {
  std::vector<Point2> queries, keys, values, outputs;  // rows of Q, K, V and the output
  std::vector<Point2> hull;                            // convex hull of the values
  std::vector<bool> inside;                            // per output
};
// Throws InputError unless d_k = d_v = 2.
GeometryView geometry_view(const Problem& p, const Result& r);

struct GeometryNumbers : LessonNumbers {
  GeometryView geometry;
};

GeometryNumbers compute_geometry(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"queries", "keys", "values", "outputs", "values_hull", "inside_hull"}
nlohmann::ordered_json geometry_to_json(const GeometryNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// The exercise of the convex hull: three queries, keys and values in the plane (whole numbers, the
// values a triangle). (a) A row's weights, (b) its output, a point inside the triangle, (c) the key
// whose value pulls it most.
Exercise geometry_exercise(const ExerciseRequest& request);

}  // namespace attnlab
