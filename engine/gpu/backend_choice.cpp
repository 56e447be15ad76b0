// The backend policy shared by the command line and the GUI, and what goes with a backend of each
// kind (engine/gpu/backend_choice.hpp).
#include "engine/gpu/backend_choice.hpp"

#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"

#include <stdexcept>

namespace attnlab {

BackendChoice parse_backend_choice(std::string_view name, std::string_view where) {
  if (name == "cpu") return BackendChoice::Cpu;
  if (name == "gpu") return BackendChoice::Gpu;
  if (name == "auto") return BackendChoice::Auto;
  throw InputError(std::string(where) + ": unknown backend '" + std::string(name) + "' (expected cpu, gpu or auto)");
}

ChosenBackend choose_backend(BackendChoice choice, const std::function<std::unique_ptr<Backend>()>& make_gpu) {
  ChosenBackend chosen;
  if (choice == BackendChoice::Cpu) {
    chosen.backend = make_cpu_backend();
    return chosen;
  }
  if (choice == BackendChoice::Gpu) {
    chosen.backend = make_gpu();
    return chosen;
  }
  try {
    std::unique_ptr<Backend> gpu = make_gpu();
    if (!gpu::is_software_renderer(gpu->description())) {
      chosen.backend = std::move(gpu);
      return chosen;
    }
    chosen.why_cpu = gpu->device() + " is a software renderer, slower than the CPU engine";
    chosen.software_renderer = true;
  } catch (const BackendUnavailable& e) {
    chosen.why_cpu = e.what();
  }
  chosen.backend = make_cpu_backend();
  return chosen;
}

std::unique_ptr<BackendBench> make_bench(Backend& backend) {
  switch (backend.kind()) {
    case BackendKind::Cpu: return make_cpu_bench();
    case BackendKind::Gpu: return gpu::make_bench(backend);
  }
  throw std::logic_error("make_bench: unknown backend kind");
}

std::unique_ptr<ScalingSampler> make_scaling_sampler(Backend& backend) {
  switch (backend.kind()) {
    case BackendKind::Cpu: return make_cpu_scaling_sampler();
    case BackendKind::Gpu: return gpu::make_scaling_sampler(backend);
  }
  throw std::logic_error("make_scaling_sampler: unknown backend kind");
}

BackendFactory headless_backend_factory(BackendKind kind) {
  switch (kind) {
    case BackendKind::Cpu: return {kind, [] { return make_cpu_backend(); }};
    case BackendKind::Gpu: return {kind, [] { return make_gpu_backend_headless(); }};
  }
  throw std::logic_error("headless_backend_factory: unknown backend kind");
}

namespace gpu {

// Here rather than in gl_context.cpp: the builds without GL compute (gpu_unavailable.cpp) need it too.
bool is_software_renderer(std::string_view renderer) {
  for (const std::string_view name : {"llvmpipe", "softpipe", "SwiftShader"}) {
    if (renderer.find(name) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace gpu

}  // namespace attnlab
