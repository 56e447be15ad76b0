// The scaling demonstration on the CPU, and the pieces shared with the GPU sampler.
#include "engine/lessons/scaling.hpp"

#include "engine/attention/matrix.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace attnlab {

namespace {

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11).
std::array<std::uint32_t, 4> philox(std::array<std::uint32_t, 4> c, std::array<std::uint32_t, 2> k) {
  constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u, W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
  for (int round = 0; round < 10; ++round) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(M0) * c[0];
    const std::uint64_t p1 = static_cast<std::uint64_t>(M1) * c[2];
    const auto hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const auto hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c = {hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0};
    k[0] += W0;
    k[1] += W1;
  }
  return c;
}

// Box–Muller on 24-bit uniforms, in float, written exactly as shaders/philox.glsl does it.
void box_muller(std::uint32_t a, std::uint32_t b, float& n0, float& n1) {
  const float u1 = (static_cast<float>(a >> 8) + 1.0f) * (1.0f / 16777216.0f);  // (0, 1]
  const float u2 = static_cast<float>(b >> 8) * (1.0f / 16777216.0f);          // [0, 1)
  const float r = std::sqrt(-2.0f * std::log(u1));
  const float theta = 6.28318530717958647692f * u2;
  n0 = r * std::cos(theta);
  n1 = r * std::sin(theta);
}

// The figures of one row of scores (one query against every key).
struct RowFigures {
  double unscaled_var, scaled_var, unscaled_max, scaled_max;
};

RowFigures row_figures(const double* s, int keys, double root_dk) {
  double mean = 0, best = -INFINITY;
  for (int j = 0; j < keys; ++j) {
    mean += s[j];
    best = std::max(best, s[j]);
  }
  mean /= keys;
  double ss = 0, e_unscaled = 0, e_scaled = 0;
  for (int j = 0; j < keys; ++j) {
    ss += (s[j] - mean) * (s[j] - mean);
    e_unscaled += std::exp(s[j] - best);
    e_scaled += std::exp((s[j] - best) / root_dk);
  }
  const double var = keys > 1 ? ss / (keys - 1) : 0.0;
  // The largest weight is exp(0) / Σ exp(s_j − max).
  return {var, var / (root_dk * root_dk), 1.0 / e_unscaled, 1.0 / e_scaled};
}

class CpuScalingSampler final : public ScalingSampler {
public:
  void sample(const ScalingOptions& o, int d_k, long long first_trial, long long count, ScalingSums& sums) override {
    const unsigned threads = std::max(1u, std::min(std::thread::hardware_concurrency(), 16u));
    std::vector<ScalingSums> partial(threads);
    auto work = [&](unsigned t) {
      const int rows = o.queries + o.keys;
      const int blocks = (d_k + 3) / 4;
      std::vector<float> x(static_cast<size_t>(rows) * static_cast<size_t>(blocks) * 4);
      std::vector<double> s(static_cast<size_t>(o.keys));
      const double root_dk = std::sqrt(static_cast<double>(d_k));
      for (long long trial = first_trial + t; trial < first_trial + count; trial += threads) {
        for (int r = 0; r < rows; ++r) {
          for (int b = 0; b < blocks; ++b) {
            const auto n = scaling_normals(o.seed, static_cast<std::uint32_t>(d_k), static_cast<std::uint32_t>(trial),
                                           static_cast<std::uint32_t>(r), static_cast<std::uint32_t>(b));
            std::copy(n.begin(), n.end(), x.begin() + (static_cast<size_t>(r) * blocks + b) * 4);
          }
        }
        for (int qi = 0; qi < o.queries; ++qi) {
          const float* q = x.data() + static_cast<size_t>(qi) * blocks * 4;
          for (int j = 0; j < o.keys; ++j) {
            const float* k = x.data() + static_cast<size_t>(o.queries + j) * blocks * 4;
            float dot = 0;
            for (int d = 0; d < d_k; ++d) dot += q[d] * k[d];
            s[static_cast<size_t>(j)] = dot;
          }
          add_row(partial[t], s.data(), o.keys, root_dk);
        }
      }
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work, t);
    work(0);
    for (auto& th : pool) th.join();
    for (const auto& p : partial) {
      sums.rows += p.rows;
      sums.unscaled_var += p.unscaled_var;
      sums.scaled_var += p.scaled_var;
      sums.unscaled_max += p.unscaled_max;
      sums.unscaled_max_sq += p.unscaled_max_sq;
      sums.scaled_max += p.scaled_max;
      sums.scaled_max_sq += p.scaled_max_sq;
      for (int b = 0; b < kScalingHistogramBins; ++b) sums.histogram[static_cast<size_t>(b)] += p.histogram[static_cast<size_t>(b)];
    }
  }

private:
  static void add_row(ScalingSums& sums, const double* s, int keys, double root_dk) {
    const RowFigures f = row_figures(s, keys, root_dk);
    sums.rows += 1;
    sums.unscaled_var += f.unscaled_var;
    sums.scaled_var += f.scaled_var;
    sums.unscaled_max += f.unscaled_max;
    sums.unscaled_max_sq += f.unscaled_max * f.unscaled_max;
    sums.scaled_max += f.scaled_max;
    sums.scaled_max_sq += f.scaled_max * f.scaled_max;
    for (int j = 0; j < keys; ++j) {
      const double z = s[j] / root_dk;
      int bin = static_cast<int>(std::floor((z + kScalingHistogramRange) / (2 * kScalingHistogramRange) * kScalingHistogramBins));
      bin = std::clamp(bin, 0, kScalingHistogramBins - 1);
      sums.histogram[static_cast<size_t>(bin)] += 1;
    }
  }
};

}  // namespace

std::array<float, 4> scaling_normals(std::uint64_t seed, std::uint32_t d_k, std::uint32_t trial, std::uint32_t row,
                                     std::uint32_t block) {
  const auto x = philox({block, row, trial, d_k},
                        {static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32)});
  std::array<float, 4> n{};
  box_muller(x[0], x[1], n[0], n[1]);
  box_muller(x[2], x[3], n[2], n[3]);
  return n;
}

std::unique_ptr<ScalingSampler> make_cpu_scaling_sampler() { return std::make_unique<CpuScalingSampler>(); }

void validate_scaling_options(const ScalingOptions& o) {
  if (o.d_ks.empty()) throw InputError("--dk: give at least one d_k (for example --dk 8,64,512,4096)");
  for (int d : o.d_ks) {
    if (d < 1 || d > kScalingMaxDk) {
      throw InputError("--dk: " + std::to_string(d) + " is out of range; each d_k must be between 1 and " +
                       std::to_string(kScalingMaxDk));
    }
  }
  if (o.keys < 1 || o.keys > kScalingMaxKeys) {
    throw InputError("--keys: " + std::to_string(o.keys) + " is out of range; it must be between 1 and " +
                     std::to_string(kScalingMaxKeys));
  }
  if (o.queries < 1 || o.queries > kScalingMaxQueries) {
    throw InputError("--queries: " + std::to_string(o.queries) + " is out of range; it must be between 1 and " +
                     std::to_string(kScalingMaxQueries));
  }
  if (o.trials < 1 || o.trials > kScalingMaxTrials) {
    throw InputError("--trials: " + std::to_string(o.trials) + " is out of range; it must be between 1 and " +
                     std::to_string(kScalingMaxTrials));
  }
}

ScalingRow finish_scaling_row(int d_k, const ScalingSums& s) {
  ScalingRow r;
  r.d_k = d_k;
  r.samples = s.rows;
  r.histogram = s.histogram;
  if (s.rows == 0) return r;
  const double n = static_cast<double>(s.rows);
  r.unscaled_std = std::sqrt(s.unscaled_var / n);
  r.scaled_std = std::sqrt(s.scaled_var / n);
  r.unscaled_max_prob = s.unscaled_max / n;
  r.scaled_max_prob = s.scaled_max / n;
  r.unscaled_max_prob_spread = std::sqrt(std::max(0.0, s.unscaled_max_sq / n - r.unscaled_max_prob * r.unscaled_max_prob));
  r.scaled_max_prob_spread = std::sqrt(std::max(0.0, s.scaled_max_sq / n - r.scaled_max_prob * r.scaled_max_prob));
  return r;
}

namespace {

// Batches of the sampler's batch_work() multiply-adds keep progress and cancel responsive.
long long batch_trials(const ScalingSampler& sampler, const ScalingOptions& o, int d_k) {
  const double per_trial = static_cast<double>(d_k) * (o.keys + o.queries) * o.queries;
  return std::max(1LL, static_cast<long long>(sampler.batch_work() / per_trial));
}

}  // namespace

ScalingJob::ScalingJob(const ScalingOptions& o) : options_(o) {
  validate_scaling_options(o);
  result_.options = o;
  for (int d : o.d_ks) total_work_ += static_cast<double>(d) * static_cast<double>(o.trials);
}

double ScalingJob::fraction() const {
  if (done()) return 1.0;
  return total_work_ > 0 ? std::min(1.0, done_work_ / total_work_) : 0.0;
}

bool ScalingJob::step(ScalingSampler& sampler, double budget_ms) {
  const auto start = std::chrono::steady_clock::now();
  while (!done()) {
    const int d = options_.d_ks[next_dk_];
    const long long count = std::min(batch_trials(sampler, options_, d), options_.trials - next_trial_);
    sampler.sample(options_, d, next_trial_, count, sums_);
    next_trial_ += count;
    done_work_ += static_cast<double>(d) * static_cast<double>(count);
    if (next_trial_ >= options_.trials) {
      result_.rows.push_back(finish_scaling_row(d, sums_));
      sums_ = ScalingSums{};
      next_trial_ = 0;
      ++next_dk_;
    }
    const double elapsed = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= budget_ms) break;
  }
  return done();
}

ScalingResult run_scaling(ScalingSampler& sampler, const ScalingOptions& o, const ScalingProgress& progress) {
  ScalingJob job(o);
  while (!job.done()) {
    if (progress && !progress(job.fraction())) return job.result();
    job.step(sampler, 0.0);  // one batch at a time between progress calls
  }
  if (progress) progress(1.0);
  return job.result();
}

}  // namespace attnlab
