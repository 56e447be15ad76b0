// The CPU backend: the engine's pipeline behind the Backend interface (its bench stages are the
// Backend defaults, stage_timing.cpp).
#include "engine/backend.hpp"

#include "engine/blas.hpp"

namespace attnlab {

namespace {

class CpuBackend final : public Backend {
public:
  std::string_view name() const override { return "cpu"; }
  std::string description() const override { return "CPU (OpenMP, " + blas::description() + ")"; }
  Result compute(const Problem& p) override { return compute_cpu(p); }
  Result compute_keeping(const Problem& p, const DenseStages& keep) override { return compute_cpu(p, keep); }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace attnlab
