// The scaling lesson's sampler on the GPU (Exercise 2.3.1's d_k sweep, lessons/scaling.hpp):
// shaders/scaling_dots.comp draws q and K with the CPU's counter-based generator and forms the dot
// products in chunks of d_k, shaders/scaling_rows.comp turns each query row into its figures and
// the histogram; the figures are summed here in double as the CPU sampler sums them.
#include "engine/gpu/gpu_device.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab::gpu {

namespace {

class GpuScalingSampler final : public ScalingSampler {
public:
  explicit GpuScalingSampler(std::shared_ptr<Device> device) : device_(std::move(device)) {}
  // Its buffers are deleted on the device's context (Device::make_current's reason).
  ~GpuScalingSampler() override { device_->make_current_before_deleting(); }
  void sample(const ScalingOptions& o, int d_k, long long first_trial, long long count, ScalingSums& sums) override;
  // At 2^24 multiply-adds a batch fills 2% of a card's invocation slots, and waits on their serial
  // work and two read-backs: `scaling --dk 65536 --trials 100000` was 4348 batches of 0.8 ms on an
  // H200, 0.36 s in all with 2^28 (docs/PERFORMANCE.md). 2^28 is still a GUI frame's work on a
  // small card. llvmpipe keeps the CPU's batch.
  double batch_work() const override {
    return double(device_->software ? 1 << 24 : 1 << 28);
  }

private:
  // The sizes of one call: dot products of 4·kChunkBlocks dimensions each, batches of trials.
  struct Plan {
    size_t chunks = 0, dots_per_trial = 0, batch = 0;
  };
  static constexpr size_t kChunkBlocks = 64;
  Plan plan(const ScalingOptions& o, int d_k, long long count);
  void draw_dots(const ScalingOptions& o, int d_k, const Plan& plan, long long first, size_t trials);
  void summarize_rows(const ScalingOptions& o, int d_k, const Plan& plan, size_t trials, ScalingSums& sums);

  std::shared_ptr<Device> device_;
  Buffer partial_, row_figures_, histogram_;
  std::vector<float> figures_;
};

// Dispatch sizes over at most 65 535 groups in x, the rest in y.
void dispatch_2d(size_t invocations) {
  const GLuint total = groups(invocations, 64);
  const GLuint gx = std::min<GLuint>(total, 65535);
  dispatch(gx, (total + gx - 1) / gx);
}

GpuScalingSampler::Plan GpuScalingSampler::plan(const ScalingOptions& o, int d_k, long long count) {
  Plan p;
  const size_t blocks = (static_cast<size_t>(d_k) + 3) / 4;
  p.chunks = (blocks + kChunkBlocks - 1) / kChunkBlocks;
  p.dots_per_trial = static_cast<size_t>(o.queries) * static_cast<size_t>(o.keys) * p.chunks;
  // Batches bounded by the buffer limit and by ~2^22 invocations per dispatch.
  const size_t max_dots = std::min(device_->limit / sizeof(float), size_t{1} << 22);
  if (p.dots_per_trial > max_dots) {
    throw InputError("--keys × --queries × d_k is too large for one GPU buffer; use fewer keys or queries");
  }
  p.batch = std::max<size_t>(1, max_dots / p.dots_per_trial);
  const size_t trials = std::min(p.batch, static_cast<size_t>(count));
  const size_t need_partial = trials * p.dots_per_trial * sizeof(float);
  if (partial_.bytes() < need_partial) partial_ = Buffer(need_partial);
  const size_t need_rows = trials * static_cast<size_t>(o.queries) * 16;
  if (row_figures_.bytes() < need_rows) row_figures_ = Buffer(need_rows);
  if (histogram_.bytes() == 0) histogram_ = Buffer(kScalingHistogramBins * sizeof(GLuint));
  return p;
}

void GpuScalingSampler::draw_dots(const ScalingOptions& o, int d_k, const Plan& plan, long long first, size_t trials) {
  const ComputeProgram& dots = device_->scaling_dots;
  dots.use();
  bind_buffers(0, {&partial_});
  dots.set("seed", static_cast<GLuint>(o.seed), static_cast<GLuint>(o.seed >> 32));
  dots.set({{"d_k", static_cast<GLuint>(d_k)},
            {"first_trial", static_cast<GLuint>(first)},
            {"trials", static_cast<GLuint>(trials)},
            {"queries", static_cast<GLuint>(o.queries)},
            {"keys", static_cast<GLuint>(o.keys)},
            {"chunks", static_cast<GLuint>(plan.chunks)},
            {"chunk_blocks", static_cast<GLuint>(kChunkBlocks)}});
  dispatch_2d(trials * plan.dots_per_trial / static_cast<size_t>(o.keys));  // every key in one invocation
  check_gl("drawing the scaling demonstration's dot products");
}

void GpuScalingSampler::summarize_rows(const ScalingOptions& o, int d_k, const Plan& plan, size_t trials,
                                       ScalingSums& sums) {
  const ComputeProgram& rows = device_->scaling_rows;
  const size_t row_count = trials * static_cast<size_t>(o.queries);
  rows.use();
  bind_buffers(0, {&partial_, &row_figures_, &histogram_});
  rows.set({{"row_count", static_cast<GLuint>(row_count)},
            {"keys", static_cast<GLuint>(o.keys)},
            {"chunks", static_cast<GLuint>(plan.chunks)},
            {"root_dk", static_cast<float>(std::sqrt(static_cast<double>(d_k)))},
            {"bins", static_cast<GLuint>(kScalingHistogramBins)},
            {"range", static_cast<float>(kScalingHistogramRange)}});
  dispatch_2d(row_count);
  check_gl("summarizing the scaling demonstration's rows");
  figures_.resize(row_count * 4);
  row_figures_.download(figures_.data(), figures_.size() * sizeof(float));
  for (size_t i = 0; i < row_count; ++i) {
    const double vu = figures_[i * 4], vs = figures_[i * 4 + 1], mu = figures_[i * 4 + 2], ms = figures_[i * 4 + 3];
    sums.rows += 1;
    sums.unscaled_var += vu;
    sums.scaled_var += vs;
    sums.unscaled_max += mu;
    sums.unscaled_max_sq += mu * mu;
    sums.scaled_max += ms;
    sums.scaled_max_sq += ms * ms;
  }
}

void GpuScalingSampler::sample(const ScalingOptions& o, int d_k, long long first_trial, long long count,
                               ScalingSums& sums) {
  device_->make_current();
  const Plan p = plan(o, d_k, count);
  histogram_.clear();
  for (long long first = first_trial; first < first_trial + count; first += static_cast<long long>(p.batch)) {
    const size_t trials = std::min(p.batch, static_cast<size_t>(first_trial + count - first));
    draw_dots(o, d_k, p, first, trials);
    summarize_rows(o, d_k, p, trials, sums);
  }
  std::vector<GLuint> hist(kScalingHistogramBins);
  histogram_.download(hist.data(), hist.size() * sizeof(GLuint));
  for (int b = 0; b < kScalingHistogramBins; ++b) sums.histogram[static_cast<size_t>(b)] += hist[static_cast<size_t>(b)];
}

}  // namespace

std::unique_ptr<ScalingSampler> make_scaling_sampler(Backend& gpu_backend) {
  return std::make_unique<GpuScalingSampler>(device_of(gpu_backend));
}

}  // namespace attnlab::gpu
