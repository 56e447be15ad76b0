// The cost table, this machine's memory and a measured head.
#include "engine/lessons/cost.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/random.hpp"
#include "engine/text/text_format.hpp"

#include <unistd.h>

#include <chrono>

namespace attnlab {

CostParams cost_params(const LessonFields& f) {
  CostParams p;
  p.n = f.integer_list("n", 100'000'000, p.n);
  p.d_k = f.positive_integer("d_k", 1 << 20, p.d_k);
  return p;
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

CostMeasurement measure_cost(Backend& backend) {
  NormalRandom rng(1);
  const Problem p{rng.normal_matrix(1024, 64, 1.0), rng.normal_matrix(1024, 64, 1.0), rng.normal_matrix(1024, 64, 1.0), Options{}};
  backend.compute(p);  // warm-up
  const auto t0 = std::chrono::steady_clock::now();
  backend.compute(p);
  CostMeasurement m;
  m.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  m.backend = backend.description();
  return m;
}

double cost_time_at(double ms_at_1024, long long n) {
  return ms_at_1024 * (static_cast<double>(n) / 1024.0) * (static_cast<double>(n) / 1024.0);
}

CostNumbers compute_cost(const Scenario& s, const Result&, Backend&, const LessonDetail&) {
  CostNumbers n;
  n.params = cost_params(LessonFields(s.lesson));
  n.machine = machine_memory();
  n.rows = cost_table(n.params.n, n.params.d_k);
  return n;
}

nlohmann::ordered_json cost_to_json(const CostNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& c : n.rows) {
    rows.push_back({{"n", c.n},
                    {"entries", c.entries},
                    {"bytes_fp32", c.bytes_fp32},
                    {"bytes_fp16", c.bytes_fp16},
                    {"fp32", both_units(c.bytes_fp32)},
                    {"fp16", both_units(c.bytes_fp16)},
                    {"gflop", c.flops / 1e9},
                    {"engine_dense_bytes", c.engine_dense_bytes},
                    {"fits_dense_here", c.fits_dense}});
  }
  const MachineMemory& mem = n.machine;
  return {{"d_k", n.params.d_k},
          {"per_head", rows},
          {"machine", {{"physical_bytes", mem.physical_bytes},
                       {"physical", both_units(mem.physical_bytes)},
                       {"dense_limit_bytes", mem.dense_limit_bytes},
                       {"dense_limit", both_units(mem.dense_limit_bytes)}}}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise cost_exercise(const ExerciseRequest& request) {
  const Scenario& s = request.preset;
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const Eigen::Index n = rnd.integer(3, 5);
    const MatrixD given_q = rnd.integers(n, 2, -1, 2), given_k = rnd.integers(n, 2, -1, 2), given_v = rnd.integers(n, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1), first_tokens(s.query_tokens, n), first_tokens(s.key_tokens, n));
    Exercise& e = d.exercise();
    const long long N = 1LL << rnd.integer(9, 13), heads = rnd.pick(std::vector<long long>{8, 12, 16});
    e.extra["n"] = N;
    e.extra["heads"] = heads;
    e.extra["bytes_per_score"] = 2;
    e.facts.push_back("a sequence of N = " + std::to_string(N) + " tokens, " + std::to_string(heads) +
                      " heads, float16 scores (2 bytes each); 1 MB = 10⁶ bytes");
    const double nn = static_cast<double>(n), per_head = static_cast<double>(N) * static_cast<double>(N);
    const double mb = 2 * per_head * static_cast<double>(heads) / 1e6;
    d.number_part("How many scores does the head given here compute?", nn * nn, 0, {},
                  {"one score per (query, key) pair: " + std::to_string(n) + " × " + std::to_string(n) + " = " + std::to_string(n * n)});
    d.number_part("How many scores per head at N tokens?", per_head, 0, {},
                  {"N × N = " + std::to_string(N) + " × " + std::to_string(N) + " = " + std::to_string(N * N)});
    d.number_part("The memory of all heads' score matrices at N tokens in float16, in MB, " + to_decimals(1) + ".", mb, 1, {},
                  {"2 bytes × " + std::to_string(N * N) + " scores × " + std::to_string(heads) + " heads = " +
                   hand_number(mb * 1e6) + " bytes = " + hand_number(mb) + " MB"});
    d.number_part("How many times more scores (and memory) when N doubles?", 4, 0, {},
                  {"(2N)² = 4 N²: four times, the quadratic cost"});
    return true;
  });
}

}  // namespace attnlab
