// The cost table, this machine's memory and a measured head.
#include "engine/lessons/cost.hpp"

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

}  // namespace attnlab
