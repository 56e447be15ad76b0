// The CPU backend: the engine's dense and streaming paths behind the compute interface, and its
// bench stages: the output-only fast paths (cpu/output_only.hpp), softmax(Q Kᵀ/(s·T) + mask) V as
// numpy and PyTorch compute it, blocked tiles skipped, no diagnostics (other normalizers than
// softmax are streamed, so fused).
#include "engine/cpu/cpu_backend.hpp"

#include "engine/cpu/blas.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/dense_plan.hpp"
#include "engine/cpu/fma_peak.hpp"
#include "engine/cpu/output_only.hpp"
#include "engine/cpu/streaming.hpp"

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

protected:
  Result run_dense(const Problem& p, const DenseStages& keep) override { return compute_cpu(p, keep); }
  Result run_streaming(const Problem& p, const StreamingOptions& options) override {
    return compute_streaming_cpu(p, options);
  }
};

class CpuBench final : public BackendBench {
public:
  std::string kernels() const override { return blas::description(); }
  // The dense plan measured on this machine (DensePlanner: once per CPU model and shape, cached).
  StageTimes time_stages(const Problem& p) override {
    DensePlan plan;
    planner_.choose(p, plan);
    StageTimes t;
    attention_output_cpu(p, plan, &t);
    return t;
  }
  PathChoice path_choice(const Problem& p) override {
    DensePlan plan;
    return planner_.choose(p, plan);
  }
  StageTimes time_streaming(const Problem& p) override {
    StageTimes t;
    attention_output_cpu(p, true, &t);
    return t;
  }
  const FmaPeak& fma_peak() override { return machine_fma_peak(); }

private:
  DensePlanner planner_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

std::unique_ptr<BackendBench> make_cpu_bench() { return std::make_unique<CpuBench>(); }

}  // namespace attnlab
