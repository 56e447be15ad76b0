// The d_k scaling demonstration of Exercise 2.3.1 (Section 2.3): q and K drawn from N(0, 1), the
// spread of the unscaled and scaled logits, and how peaked softmax gets, averaged over trials.
// The random numbers are counter-based (Philox4x32-10 + Box–Muller), so the CPU and the GPU
// kernel (shaders/scaling_dots.comp) draw the very same q and K for the same seed.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace attnlab {

struct ScalingOptions {
  std::vector<int> d_ks{8, 64, 512, 4096};
  int keys = 10;            // keys per row (m)
  int queries = 1;          // query rows per trial, all against the same K
  long long trials = 1000;  // independent draws of q and K per d_k
  std::uint64_t seed = 42;
};

// Limits checked by validate_scaling_options.
inline constexpr int kScalingMaxDk = 1 << 20;
inline constexpr int kScalingMaxKeys = 4096;
inline constexpr int kScalingMaxQueries = 4096;
inline constexpr long long kScalingMaxTrials = 100'000'000;

// The histogram of the scaled logits z = q·k / √d_k: kScalingHistogramBins equal bins over
// [−kScalingHistogramRange, +kScalingHistogramRange], values outside fall in the end bins.
// The unscaled logits have the same histogram with the axis stretched by √d_k.
inline constexpr int kScalingHistogramBins = 64;
inline constexpr double kScalingHistogramRange = 4.0;

// Running sums for one d_k; samplers add to them, finish_scaling_row turns them into figures.
struct ScalingSums {
  long long rows = 0;                       // query rows seen (trials × queries)
  double unscaled_var = 0, scaled_var = 0;  // Σ over rows of the sample variance over keys
  double unscaled_max = 0, unscaled_max_sq = 0, scaled_max = 0, scaled_max_sq = 0;  // max probability
  std::vector<long long> histogram = std::vector<long long>(kScalingHistogramBins, 0);
};

struct ScalingRow {
  int d_k = 0;
  // The typical std of a row's logits over its keys (sample std, as torch.std computes it),
  // averaged over rows as the root of the mean variance, so that it estimates √d_k unbiasedly.
  double unscaled_std = 0, scaled_std = 0;
  // Mean over rows of the largest softmax weight, and its spread (standard deviation over rows).
  double unscaled_max_prob = 0, scaled_max_prob = 0;
  double unscaled_max_prob_spread = 0, scaled_max_prob_spread = 0;
  long long samples = 0;  // rows averaged
  std::vector<long long> histogram;  // of the scaled logits, see kScalingHistogramBins
};

struct ScalingResult {
  ScalingOptions options;
  std::vector<ScalingRow> rows;  // one per d_k, in options order
};

// Throws InputError naming the flag (--dk, --keys, --queries, --trials) on out-of-range values.
void validate_scaling_options(const ScalingOptions& o);

ScalingRow finish_scaling_row(int d_k, const ScalingSums& sums);

// Draws trials and adds their figures to running sums. One per backend.
class ScalingSampler {
public:
  virtual ~ScalingSampler() = default;
  // Adds trials [first_trial, first_trial + count) for this d_k to `sums`.
  virtual void sample(const ScalingOptions& o, int d_k, long long first_trial, long long count, ScalingSums& sums) = 0;
  // Multiply-adds (d_k × rows × queries per trial) in one batch: small enough that a GUI frame
  // can run one, large enough that the backend's fixed cost per batch stays small. Fixed per
  // sampler, so a run is repeatable (the CPU's threads each sum their share of a batch).
  virtual double batch_work() const { return double(1 << 24); }
};

std::unique_ptr<ScalingSampler> make_cpu_scaling_sampler();

// Called between batches with the fraction done (0..1); returning false cancels the run.
using ScalingProgress = std::function<bool(double fraction)>;

// Runs every d_k of `o` in batches. Returns the rows finished so far when cancelled (the
// cancelled d_k is left out). Throws InputError for invalid options.
ScalingResult run_scaling(ScalingSampler& sampler, const ScalingOptions& o, const ScalingProgress& progress = {});

// A scaling run done a slice at a time, so that a GUI can run it between frames, show progress
// and cancel it. The same batches as run_scaling, so the figures are identical.
class ScalingJob {
public:
  // Throws InputError for invalid options.
  explicit ScalingJob(const ScalingOptions& o);
  // Runs batches until about `budget_ms` have passed (at least one batch). Returns true when done.
  bool step(ScalingSampler& sampler, double budget_ms);
  bool done() const { return next_dk_ >= options_.d_ks.size(); }
  double fraction() const;  // 0..1, by work (d_k × trials)
  // Rows of the finished d_k values; the one in progress is left out.
  const ScalingResult& result() const { return result_; }
  const ScalingOptions& options() const { return options_; }

private:
  ScalingOptions options_;
  ScalingResult result_;
  ScalingSums sums_;
  size_t next_dk_ = 0;
  long long next_trial_ = 0;
  double total_work_ = 0, done_work_ = 0;
};

// Four standard normals for elements 4·block … 4·block + 3 of row `row` (query rows first, then
// key rows) of trial `trial` at this d_k: Philox4x32-10 keyed by the seed, then Box–Muller.
std::array<float, 4> scaling_normals(std::uint64_t seed, std::uint32_t d_k, std::uint32_t trial, std::uint32_t row,
                                     std::uint32_t block);

}  // namespace attnlab
