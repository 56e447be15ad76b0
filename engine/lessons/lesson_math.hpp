// Small computations behind the special lesson views: the temperature sweep, the convex hull
// of the values (the geometry of "13.2 Scaled dot-product attention"), the cost of the n × n
// score matrix ("Query, Key, Value"; "13.2 Scaled dot-product attention"), the self-attention
// twin of a cross-attention scenario. (The by-hand arithmetic of one cell is engine/attention/explain.hpp.)
#pragma once

#include "engine/attention/attention.hpp"
#include "engine/io/scenario.hpp"

#include <array>
#include <string>
#include <vector>

namespace attnlab {

// ---- Temperature ----------------------------------------------------------------------------

// `count` temperatures spaced evenly on a log scale from lo to hi (both included).
std::vector<double> log_spaced(double lo, double hi, long long count);

struct TemperatureFrame {
  double temperature = 1;      // T
  double effective = 1;        // s · T
  Matrix weights;              // n × m
  Matrix output;               // n × d_v
  std::vector<float> max_weight;  // per row
  std::vector<float> entropy;     // per row, nats
};

// The problem recomputed at each temperature (everything else as given). Throws InputError.
std::vector<TemperatureFrame> temperature_sweep(const Problem& p, const std::vector<double>& temperatures);

// The limits the sweep approaches, n × m: τ → 0 gives hardmax (ties share), τ → ∞ gives uniform
// weights over each row's visible keys.
Matrix one_hot_limit(const Problem& p);
Matrix uniform_limit(const Problem& p);

// ---- Geometry (d_k = d_v = 2) ----------------------------------------------------------------

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

// ---- Cost -----------------------------------------------------------------------------------

struct CostRow {
  long long n = 0;
  double entries = 0;         // n², per head
  double bytes_fp32 = 0;      // 4 n²
  double bytes_fp16 = 0;      // 2 n²
  double flops = 0;           // 2·n²·d_k (QKᵀ) + 2·n²·d_k (weights·V, d_v = d_k)
  double engine_dense_bytes = 0;  // what this engine's dense path holds (four n × n float32 stages)
  bool fits_dense = false;    // engine_dense_bytes within the engine's limit on this machine
};

struct MachineMemory {
  double physical_bytes = 0;   // this machine's RAM
  double dense_limit_bytes = 0;  // the engine's limit for dense stages (half of RAM)
};

MachineMemory machine_memory();
std::vector<CostRow> cost_table(const std::vector<long long>& n, long long d_k);

// ---- Self vs cross ---------------------------------------------------------------------------

// The self-attention twin of a cross-attention scenario: the keys' sequence attends to itself
// (Q := K, query tokens := key tokens), so its score matrix is square.
Scenario self_attention_twin(const Scenario& cross);

}  // namespace attnlab

namespace attnlab {

// ---- Exercise 2.3.1 in small --------------------------------------------------------------------

struct ScalingSweepRow {
  long long d_k = 0;
  double unscaled_std = 0, scaled_std = 0;            // std of one row's scores, mean over trials
  double unscaled_max_prob = 0, scaled_max_prob = 0;  // max softmax probability, mean over trials
};

// Section 2.3's demonstration on the CPU: per trial q (1 × d_k) and K (keys × d_k) from N(0, 1);
// means over `trials`. Small sizes only: the Scaling lab and `attnlab scaling` do the big runs.
std::vector<ScalingSweepRow> lesson_scaling_sweep(const std::vector<long long>& dk, long long keys, long long trials,
                                                  unsigned long long seed);

}  // namespace attnlab
