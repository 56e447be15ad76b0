// Backend selection for --backend cpu|gpu|auto: the shared policy (engine/gpu/backend_choice.hpp)
// with the GPU on a headless EGL context.
#include "cli/backend_select.hpp"

#include "engine/gpu/backend_choice.hpp"

namespace attnlab::cli {

std::unique_ptr<Backend> select_backend(const std::string& kind, std::ostream& notice, const GpuBackendOptions& gpu) {
  const BackendChoice choice = parse_backend_choice(kind, "--backend");
  try {
    ChosenBackend chosen = choose_backend(choice, [&gpu] { return make_gpu_backend_headless(gpu); });
    // A software renderer is not a fallback but the slower of two CPU engines: the CPU one is
    // chosen without a notice (the JSON's "backend" says which ran; --backend gpu forces it).
    if (!chosen.why_cpu.empty() && !chosen.software_renderer) {
      notice << "attnlab: using the CPU backend (" << chosen.why_cpu << ")\n";
    }
    return std::move(chosen.backend);
  } catch (const BackendUnavailable& e) {
    throw BackendUnavailable(std::string("--backend gpu: ") + e.what());
  }
}

}  // namespace attnlab::cli
