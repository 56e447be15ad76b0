// The CPU backend: the engine's reference pipeline behind the Backend interface.
#include "engine/backend.hpp"

#include "engine/blas.hpp"

namespace attnlab {

namespace {

class CpuBackend final : public Backend {
public:
  std::string_view name() const override { return "cpu"; }
  std::string description() const override { return "CPU (OpenMP, " + blas::description() + ")"; }
  Result compute(const Problem& p) override { return compute_cpu(p); }
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() { return std::make_unique<CpuBackend>(); }

}  // namespace attnlab
