// The GPU backend's bench (`attnlab bench --backend gpu`): the dense kernels timed stage by stage,
// the streaming path as one fused stage, and the device's own FMA peak (gpu_fma_peak.hpp).
#include "engine/gpu/gpu_clock.hpp"
#include "engine/gpu/gpu_device.hpp"
#include "engine/gpu/gpu_fma_peak.hpp"

#include <chrono>
#include <string>

namespace attnlab::gpu {

namespace {

class GpuBench final : public BackendBench {
public:
  explicit GpuBench(std::shared_ptr<Device> device) : device_(std::move(device)) {}

  std::string kernels() const override { return device_->shared_tiles ? "shared-memory tiles" : "texture tiles"; }
  std::string streaming_kernels(const Problem& p) override {
    device_->make_current();
    if (const auto* k = block_kernel(device_->streaming_programs(), p, streaming_options(), device_->limit)) {
      return "blocks of " + std::to_string(k->rows) + " rows, " + std::to_string(k->keys) + " keys a tile (stream_block.comp)";
    }
    return "a row per invocation (stream_update.comp), " + kernels();
  }
  ~GpuBench() override {
    device_->make_current_before_deleting();
    resident_.reset();
  }
  GpuBench(const GpuBench&) = delete;
  GpuBench& operator=(const GpuBench&) = delete;

  // The same problem's runs on the same buffers: the matrices stay on the card between them.
  StageTimes time_stages(const Problem& p) override {
    device_->make_current();
    if (!resident_ || !resident_->holds(p)) {
      resident_.reset();
      resident_ = std::make_unique<ResidentDense>(device_->dense_programs(), p, device_->limit);
    }
    return resident_->run();
  }
  // One path: the dense kernels on the device's tiles (GpuTiles), nothing to choose.
  PathChoice path_choice(const Problem&) override { return {}; }
  // The streaming path without the heatmap (output, rows and stats), timed as one fused stage.
  StageTimes time_streaming(const Problem& p) override {
    device_->make_current();
    glFinish();
    const auto start = std::chrono::steady_clock::now();
    compute_streaming_gpu(device_->streaming_programs(), p, streaming_options(), device_->limit);
    StageTimes t;
    t.fused = true;
    t.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return t;
  }
  // An NVIDIA card's SM clock every 10 ms (its idle clocks show within a few samples).
  void start_clock_log() override {
    if (!clock_) clock_ = std::make_unique<SmClock>(device_->renderer);
    if (clock_->available()) sampler_ = std::make_unique<ClockSampler>(*clock_, 10);
  }
  ClockLog stop_clock_log() override {
    ClockLog log;
    if (!sampler_) return log;
    log.mhz = sampler_->stop();
    log.top_mhz = clock_->top_mhz();
    sampler_.reset();
    return log;
  }
  const FmaPeak& fma_peak() override {
    if (!device_->peak) {
      device_->make_current();
      device_->peak = measure_fma_peak();
    }
    return *device_->peak;
  }

private:
  // What time_streaming computes: output, rows and stats, no heatmap.
  static StreamingOptions streaming_options() {
    StreamingOptions options;
    options.heatmap_rows = options.heatmap_cols = 0;
    return options;
  }

  std::shared_ptr<Device> device_;
  std::unique_ptr<ResidentDense> resident_;  // the last problem time_stages ran
  std::unique_ptr<SmClock> clock_;
  std::unique_ptr<ClockSampler> sampler_;
};

}  // namespace

std::unique_ptr<BackendBench> make_bench(Backend& gpu_backend) {
  return std::make_unique<GpuBench>(device_of(gpu_backend));
}

}  // namespace attnlab::gpu
