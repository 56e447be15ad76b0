// The dense plan's calibration and its cache (cpu/dense_plan.hpp).
//
// [SECTION] Candidates and names
// [SECTION] The cache file
// [SECTION] The planner
#include "engine/cpu/dense_plan.hpp"

#include "engine/attention/overflow_guard.hpp"
#include "engine/cpu/blas.hpp"
#include "engine/cpu/softmax_kernels.hpp"
#include "engine/text/text_format.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <system_error>

namespace attnlab {

namespace {

using Index = Eigen::Index;

// [SECTION] Candidates and names

bool parse_index(std::string_view text, Index& out) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 1 || v > (1 << 24)) return false;
  out = static_cast<Index>(v);
  return true;
}

// A leaf: a number of rows, or "full" (0).
bool parse_leaf(std::string_view text, Index& out) {
  if (text == "full") {
    out = 0;
    return true;
  }
  return parse_index(text, out);
}

}  // namespace

std::vector<DensePlan> candidate_dense_plans(const Problem& p) {
  DensePlan first = default_dense_plan(p);
  const Index n = p.Q.rows(), m = p.K.rows();
  const bool masked = p.options.mask.visible_cells(n, m) < static_cast<long long>(n) * m;
  if (!masked) first.leaf = 0;  // no staircase to cut: every leaf is one product, named once
  std::vector<DensePlan> plans{first};
  if (needs_exact_rows(p, ScoreOverflowGuard(p))) return plans;  // they stream whatever the plan
  const auto add = [&](DensePlan plan) {
    if (std::find(plans.begin(), plans.end(), plan) == plans.end()) plans.push_back(plan);
  };
  const Index rows = dense_strip_rows(m, std::max(p.Q.cols(), p.V.cols()));
  const Index leaf = masked ? 32 : 0;  // without a mask there is no staircase to cut
  add({DensePlan::Layout::Strips, rows, leaf});
  if (masked) add({DensePlan::Layout::Strips, rows, 0});
  if (rows < n && rows < 512) add({DensePlan::Layout::Strips, std::min<Index>(2 * rows, 512), leaf});
  if (!wide_fits(p)) return plans;
  if (masked) add({DensePlan::Layout::Wide, 0, 64});
  if (masked && own_dense_kernels()) add({DensePlan::Layout::Wide, 0, 64, /*own_scores=*/true, /*own_output=*/true});
  if (masked && n > 256) add({DensePlan::Layout::Wide, 0, 256});
  add({DensePlan::Layout::Wide, 0, 0});
  return plans;
}

std::optional<DensePlan> parse_dense_plan(std::string_view name) {
  DensePlan plan;
  if (name.rfind("wide ", 0) == 0) {
    plan.layout = DensePlan::Layout::Wide;
    plan.rows = 0;
    std::string_view leaf = name.substr(5);
    const auto own = [&](std::string_view suffix, bool scores, bool output) {
      if (leaf.size() <= suffix.size() || leaf.substr(leaf.size() - suffix.size()) != suffix) return false;
      leaf.remove_suffix(suffix.size());
      plan.own_scores = scores;
      plan.own_output = output;
      return true;
    };
    own(", own kernels", true, true) || own(", own scores", true, false) || own(", own output", false, true);
    if (!parse_leaf(leaf, plan.leaf)) return std::nullopt;
    return plan;
  }
  if (name.rfind("strips ", 0) != 0) return std::nullopt;
  const std::string_view rest = name.substr(7);
  const size_t slash = rest.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  plan.layout = DensePlan::Layout::Strips;
  if (!parse_index(rest.substr(0, slash), plan.rows) || !parse_leaf(rest.substr(slash + 1), plan.leaf)) return std::nullopt;
  return plan;
}

// [SECTION] The cache file

namespace {

// Its number goes up whenever the candidates change: a choice among other plans is measured again.
constexpr std::string_view kCacheHeader = "attnlab dense plans 3";
constexpr size_t kCacheEntries = 500;  // the newest; a cache is not a log

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// Tabs and line breaks cannot be part of a field.
std::string field(std::string text) {
  for (char& c : text) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// The first value of `key` in /proc/cpuinfo ("" where there is none).
std::string cpuinfo(std::string_view key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string_view name(line.data(), colon);
    while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
    if (name != key) continue;
    const size_t value = line.find_first_not_of(' ', colon + 1);
    return value == std::string::npos ? "" : line.substr(value);
  }
  return "";
}

}  // namespace

std::vector<PlanCacheEntry> parse_plan_cache(std::string_view text) {
  std::vector<PlanCacheEntry> entries;
  std::vector<std::string_view> lines = split(text, '\n');
  for (std::string_view& line : lines) {
    if (line.ends_with('\r')) line.remove_suffix(1);  // a file saved with CRLF line ends
  }
  if (lines.empty() || lines.front() != kCacheHeader) return entries;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    // A line break inside a field would not write back as itself (format_plan_cache makes it a space).
    if (line.find('\r') != std::string_view::npos) continue;
    const std::vector<std::string_view> f = split(line, '\t');
    if (f.size() != 4 || f[0].empty() || f[1].empty()) continue;
    const std::optional<DensePlan> plan = parse_dense_plan(f[2]);
    double ms = 0;
    const auto [end, ec] = std::from_chars(f[3].data(), f[3].data() + f[3].size(), ms);
    if (!plan || ec != std::errc() || end != f[3].data() + f[3].size() || !std::isfinite(ms) || ms < 0) continue;
    entries.push_back({std::string(f[0]), std::string(f[1]), *plan, ms});
  }
  return entries;
}

std::string format_plan_cache(const std::vector<PlanCacheEntry>& entries) {
  std::ostringstream out;
  out << kCacheHeader << "\n";
  for (const PlanCacheEntry& e : entries) {
    out << field(e.machine) << '\t' << field(e.shape) << '\t' << e.plan.name() << '\t' << shortest_decimals(e.ms) << "\n";
  }
  return out.str();
}

std::string plan_machine_key() {
  std::string cpu = cpuinfo("vendor_id") + " family " + cpuinfo("cpu family") + " model " + cpuinfo("model") + " (" +
                    cpuinfo("model name") + ")";
  return field(cpu + ", " + blas::description() + ", " + kernels::table().name + " softmax kernels, " +
               std::to_string(omp_get_max_threads()) + " threads");
}

std::string plan_shape_key(const Problem& p) {
  return "n=" + std::to_string(p.Q.rows()) + " m=" + std::to_string(p.K.rows()) + " d_k=" + std::to_string(p.Q.cols()) +
         " d_v=" + std::to_string(p.V.cols()) + " mask=" + mask_spec(p.options.mask);
}

std::filesystem::path default_plan_cache_path() {
  if (const char* e = std::getenv("ATTNLAB_PLAN_CACHE")) return e;
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg && xdg[0] == '/') return std::filesystem::path(xdg) / "attnlab" / "dense-plans.txt";
  const char* home = std::getenv("HOME");
  if (home && home[0] == '/') return std::filesystem::path(home) / ".cache" / "attnlab" / "dense-plans.txt";
  return {};
}

// [SECTION] The planner

namespace {

// The cache's entries, or none where the file is missing or unreadable.
std::vector<PlanCacheEntry> read_cache(const std::filesystem::path& path) {
  if (path.empty()) return {};
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return parse_plan_cache(text.str());
}

double run_ms(const Problem& p, const DensePlan& plan) {
  StageTimes t;
  attention_output_cpu(p, plan, &t);
  return t.total_ms;
}

// How long the calibration may take, and how long one run may be for it to be worth it.
constexpr double kBudgetMs = 1500;
constexpr double kMaxRunMs = 1000;

}  // namespace

DensePlanner::DensePlanner(std::filesystem::path cache) : cache_(std::move(cache)), machine_(plan_machine_key()) {}

size_t pick_dense_plan(const std::vector<std::vector<double>>& times) {
  if (times.empty() || times[0].empty()) return 0;
  std::vector<double> best;
  for (const std::vector<double>& t : times) {
    best.push_back(t.empty() ? std::numeric_limits<double>::infinity() : *std::min_element(t.begin(), t.end()));
  }
  const size_t quickest = static_cast<size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  const auto [lo, hi] = std::minmax_element(times[0].begin(), times[0].end());
  return best[0] - best[quickest] > *hi - *lo ? quickest : 0;
}

DensePlanner::Choice DensePlanner::measure(const Problem& p, const std::vector<DensePlan>& candidates) const {
  Choice c;
  c.report.source = "measured";
  // One untimed run each (page faults, threads starting), which also sizes the rounds.
  double round_ms = 0;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const double ms = run_ms(p, candidates[i]);
    round_ms += ms;
    if (i == 0 && ms > kMaxRunMs) {
      c.plan = candidates[0];
      c.report.source = "default";
      c.report.candidates = {{candidates[0].name(), ms}};
      return c;
    }
  }
  const int rounds = std::clamp(static_cast<int>(kBudgetMs / std::max(round_ms, 1e-3)), 1, 5);
  // Alternately, so that a slow moment of a shared host hits every candidate alike.
  std::vector<std::vector<double>> times(candidates.size());
  for (int r = 0; r < rounds; ++r) {
    for (size_t i = 0; i < candidates.size(); ++i) times[i].push_back(run_ms(p, candidates[i]));
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    c.report.candidates.push_back({candidates[i].name(), *std::min_element(times[i].begin(), times[i].end())});
  }
  const size_t pick = pick_dense_plan(times);
  c.plan = candidates[pick];
  c.ms = c.report.candidates[pick].ms;
  return c;
}

std::string DensePlanner::save(const std::string& shape, const DensePlan& plan, double ms) const {
  if (cache_.empty()) return "none (no ATTNLAB_PLAN_CACHE, XDG_CACHE_HOME or HOME)";
  std::vector<PlanCacheEntry> entries = read_cache(cache_);
  std::erase_if(entries, [&](const PlanCacheEntry& e) { return e.machine == machine_ && e.shape == shape; });
  entries.push_back({machine_, shape, plan, ms});
  if (entries.size() > kCacheEntries) entries.erase(entries.begin(), entries.end() - kCacheEntries);
  std::error_code ec;
  std::filesystem::create_directories(cache_.parent_path(), ec);
  // A whole file or none: written beside it, then renamed over it.
  const std::filesystem::path temp = cache_.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << format_plan_cache(entries);
    if (!out.flush()) {
      std::filesystem::remove(temp, ec);
      return cache_.string() + " (not written: it cannot be created)";
    }
  }
  std::filesystem::rename(temp, cache_, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    return cache_.string() + " (not written: " + ec.message() + ")";
  }
  return cache_.string();
}

const PathChoice& DensePlanner::choose(const Problem& p, DensePlan& plan) {
  if (const char* forced = std::getenv("ATTNLAB_DENSE_PLAN"); forced && *forced) {
    const std::optional<DensePlan> named = parse_dense_plan(forced);
    if (!named) {
      throw InputError(std::string("ATTNLAB_DENSE_PLAN: '") + forced +
                       "' is not a plan (strips R/L or wide L, L a number of rows or full)");
    }
    plan = *named;
    Choice& c = chosen_["forced"];
    c = {*named, 0, {named->name(), "forced", "ATTNLAB_DENSE_PLAN", {}}};
    return c.report;
  }
  const std::string shape = plan_shape_key(p);
  if (const auto it = chosen_.find(shape); it != chosen_.end()) {
    plan = it->second.plan;
    return it->second.report;
  }
  const std::vector<DensePlan> candidates = candidate_dense_plans(p);
  Choice c;
  if (candidates.size() == 1) {
    c = {candidates[0], 0, {candidates[0].name(), "default", "", {}}};
  } else {
    for (const PlanCacheEntry& e : read_cache(cache_)) {
      // A plan that is no longer a candidate (another version's) is measured again.
      const bool usable = std::find(candidates.begin(), candidates.end(), e.plan) != candidates.end();
      if (e.machine != machine_ || e.shape != shape || !usable) continue;
      c = {e.plan, e.ms, {e.plan.name(), "cached", cache_.string(), {{e.plan.name(), e.ms}}}};
    }
    if (c.report.source.empty()) {
      c = measure(p, candidates);
      if (c.report.source == "measured") c.report.cache = save(shape, c.plan, c.ms);
    }
  }
  c.report.chosen = c.plan.name();
  plan = c.plan;
  return (chosen_[shape] = std::move(c)).report;
}

}  // namespace attnlab
