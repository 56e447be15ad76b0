// Which dense plan (cpu/output_only.hpp: strips or all rows at once, and how finely a blocked
// staircase is cut) `attnlab bench` runs: measured on the running machine the first time a shape
// is timed, as FFTW's planner does, and kept in a cache file per CPU model, BLAS kernels, kernel
// variant and thread count. Constants tuned on one host lose on the next (docs/PERFORMANCE.md).
// Every plan gives the output within the same bounds, and nothing else uses them: the numbers
// `compute` prints never depend on a calibration.
#pragma once

#include "engine/attention/bench.hpp"
#include "engine/cpu/output_only.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// The plans worth measuring for p, the default first: strips of the default height with their
// sub-strips and whole, strips of twice the height, and where the n × m weights fit (wide_fits)
// all rows at once with 64- and 256-row leaves, on the CPU's own kernels where it has them,
// and as one product. Without a mask the cutting does nothing, and only the layouts and heights
// are measured.
std::vector<DensePlan> candidate_dense_plans(const Problem& p);

// "strips R/L" or "wide L" (L a number of rows or "full"), as DensePlan::name writes them; nullopt
// for anything else.
std::optional<DensePlan> parse_dense_plan(std::string_view name);

// One line of the cache file: on `machine` (plan_machine_key), problems of `shape`
// (plan_shape_key) ran fastest on `plan`, in `ms` (its quickest calibration run).
struct PlanCacheEntry {
  std::string machine, shape;
  DensePlan plan;
  double ms = 0;
  friend bool operator==(const PlanCacheEntry&, const PlanCacheEntry&) = default;
};

// The cache file's text: a first line "attnlab dense plans 3" (its number raised whenever the
// candidates change), then one entry a line, its four fields separated by tabs. Reading never
// fails: lines that are not entries (and the whole text when the first line is not that header,
// an older version's choice among other plans) are passed over, and the calibration measures again.
std::vector<PlanCacheEntry> parse_plan_cache(std::string_view text);
std::string format_plan_cache(const std::vector<PlanCacheEntry>& entries);

// This machine as the cache knows it: the CPU (vendor, family, model and model name from
// /proc/cpuinfo), the BLAS and its kernels, the softmax kernels' variant and the thread count.
std::string plan_machine_key();
// A problem's shape: "n=1024 m=1024 d_k=64 d_v=64 mask=causal".
std::string plan_shape_key(const Problem& p);

// Where the cache lives: $ATTNLAB_PLAN_CACHE (empty: none), else $XDG_CACHE_HOME/attnlab/
// dense-plans.txt, else ~/.cache/attnlab/dense-plans.txt; empty when there is no home.
std::filesystem::path default_plan_cache_path();

// Which candidate a calibration keeps, from each one's timed rounds (times[i], candidate 0 the
// default): the one with the quickest run, unless it beats the default's quickest by no more than
// the default's own spread across its rounds (slowest − quickest). Then the rounds cannot tell the
// two apart on this host, and the default stays: a noisy minute must not displace it.
size_t pick_dense_plan(const std::vector<std::vector<double>>& times);

class DensePlanner {
public:
  explicit DensePlanner(std::filesystem::path cache = default_plan_cache_path());

  // The plan for p and how it was chosen: ATTNLAB_DENSE_PLAN when set (InputError when it names no
  // plan), else this process's earlier choice for the shape, else the cache's, else measured now
  // on p (each candidate once untimed, then alternately up to five times within ~1.5 s, the
  // quickest run of each counting, pick_dense_plan choosing) and written to the cache. A cache that cannot be read or
  // written is only reported (PathChoice::cache), never an error. Problems the dense path does not
  // run (they stream) get the default without measuring.
  const PathChoice& choose(const Problem& p, DensePlan& plan);

private:
  struct Choice {
    DensePlan plan;
    double ms = 0;  // its quickest run (0: not measured)
    PathChoice report;
  };
  Choice measure(const Problem& p, const std::vector<DensePlan>& candidates) const;
  std::string save(const std::string& shape, const DensePlan& plan, double ms) const;

  std::filesystem::path cache_;
  std::string machine_;
  std::map<std::string, Choice> chosen_;  // by shape key
};

}  // namespace attnlab
