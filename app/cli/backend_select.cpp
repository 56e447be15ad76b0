// Backend selection: cpu, gpu (GL compute on a headless EGL context), or auto (a hardware GPU where
// a GL 4.3 context can be made, else CPU with a one-line notice).
#include "cli/backend_select.hpp"

#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"

namespace attnlab::cli {

std::unique_ptr<Backend> select_backend(const std::string& kind, std::ostream& notice) {
  if (kind == "cpu") return make_cpu_backend();
  if (kind == "gpu") {
    try {
      return make_gpu_backend_headless();
    } catch (const BackendUnavailable& e) {
      throw BackendUnavailable(std::string("--backend gpu: ") + e.what());
    }
  }
  if (kind == "auto") {
    try {
      // A software renderer is not a fallback but the slower of two CPU engines: the CPU one is
      // chosen without a notice (the JSON's "backend" says which ran; --backend gpu forces it).
      std::unique_ptr<Backend> gpu = make_gpu_backend_headless();
      if (!gpu::is_software_renderer(gpu->description())) return gpu;
    } catch (const BackendUnavailable& e) {
      notice << "attnlab: using the CPU backend (" << e.what() << ")\n";
    }
    return make_cpu_backend();
  }
  throw InputError("--backend: unknown backend '" + kind + "' (expected cpu, gpu or auto)");
}

}  // namespace attnlab::cli
