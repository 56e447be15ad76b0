// Cost (view cost; "Query, Key, Value" and "13.2 Scaled dot-product attention"): the n × n score
// matrix of one head as n grows, in entries, bytes (fp32, fp16) and FLOPs, against this machine's
// memory and the engine's dense limit, and a time measured on the backend the view runs on.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kCostView = "cost";

// The sequence lengths, and the per-head key dimension the FLOPs are counted with.
struct CostParams {
  std::vector<long long> n{1024, 8192, 32768, 100000};  // lesson.n
  long long d_k = 64;                                   // lesson.d_k
};
CostParams cost_params(const LessonFields& f);

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

// The view's "Measure": one dense computation of a head at n = 1024, d_k = 64 (seeded N(0, 1)
// inputs) on `backend`, after a warm-up run. Throws what the backend throws.
struct CostMeasurement {
  double ms = 0;        // the second run's milliseconds
  std::string backend;  // the backend's description
};
CostMeasurement measure_cost(Backend& backend);
// A time measured at n = 1024 scaled to n: the n × n work grows as n².
double cost_time_at(double ms_at_1024, long long n);

struct CostNumbers : LessonNumbers {
  CostParams params;
  MachineMemory machine;
  std::vector<CostRow> rows;
};

CostNumbers compute_cost(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"d_k", "per_head": [{"n", "entries", "bytes_fp32", "bytes_fp16", "fp32", "fp16", "gflop",
// "engine_dense_bytes", "fits_dense_here"}], "machine": {"physical_bytes", "physical",
// "dense_limit_bytes", "dense_limit"}}
nlohmann::ordered_json cost_to_json(const CostNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// The exercise of the cost of attention: a small head (three to five tokens) and a long sequence of N
// tokens with H heads. (a) The scores the small head computes, (b) the scores per head at N, (c) all
// heads' score matrices in float16 at N, in MB, (d) how many times more when N doubles.
Exercise cost_exercise(const ExerciseRequest& request);

}  // namespace attnlab
