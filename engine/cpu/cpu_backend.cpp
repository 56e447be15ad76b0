// The CPU backend: the engine's dense and streaming paths behind the Backend interface, and its
// bench stages: the output-only fast paths (cpu/output_only.hpp), softmax(Q Kᵀ/(s·T) + mask) V as
// numpy and PyTorch compute it, blocked tiles skipped, no diagnostics (other normalizers than
// softmax are streamed, so fused).
#include "engine/attention/backend.hpp"

#include "engine/cpu/blas.hpp"

namespace attnlab {

namespace {

class CpuBackend final : public Backend {
public:
  BackendKind kind() const override { return BackendKind::Cpu; }
#ifdef _OPENMP
  std::string device() const override { return "OpenMP, " + blas::description(); }
#else
  std::string device() const override { return "one thread, " + blas::description(); }
#endif
  std::string description() const override { return "CPU (" + device() + ")"; }
  std::string kernels() const override { return blas::description(); }
  Result compute(const Problem& p) override { return compute_cpu(p); }
  Result compute_keeping(const Problem& p, const DenseStages& keep) override { return compute_cpu(p, keep); }
  StageTimes time_stages(const Problem& p) override {
    StageTimes t;
    attention_output_cpu(p, false, &t);
    return t;
  }
  StageTimes time_streaming(const Problem& p) override {
    StageTimes t;
    attention_output_cpu(p, true, &t);
    return t;
  }
  std::unique_ptr<ScalingSampler> scaling_sampler() override { return make_cpu_scaling_sampler(); }
  Result compute_streaming(const Problem& p, const StreamingOptions& options) override {
    return compute_streaming_cpu(p, options);
  }
  const FmaPeak& fma_peak() override { return machine_fma_peak(); }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace attnlab
