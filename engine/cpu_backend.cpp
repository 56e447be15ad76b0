// The CPU backend: the engine's pipeline (and its bench fast paths) behind the Backend interface.
#include "engine/backend.hpp"

#include "engine/blas.hpp"
#include "engine/forward.hpp"

namespace attnlab {

namespace {

class CpuBackend final : public Backend {
public:
  std::string_view name() const override { return "cpu"; }
  std::string description() const override { return "CPU (OpenMP, " + blas::description() + ")"; }
  Result compute(const Problem& p) override { return compute_cpu(p); }
  Result compute_keeping(const Problem& p, const DenseStages& keep) override { return compute_cpu(p, keep); }
  // The bench stages of the fast path (softmax(Q Kᵀ/(s·T) + mask) V, what numpy and PyTorch
  // compute): blocked tiles skipped, no diagnostics (time_stages_cpu times the full pipeline).
  StageTimes time_stages(const Problem& p) override {
    ForwardTimings f;
    attention_output_cpu(p, false, &f);
    StageTimes t;
    t.scores_ms = f.scores_ms;
    t.softmax_ms = f.softmax_ms;
    t.output_ms = f.output_ms;
    t.fused = f.fused;  // normalizers other than softmax, or too large to hold: streamed
    t.total_ms = f.total_ms;
    return t;
  }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace attnlab
