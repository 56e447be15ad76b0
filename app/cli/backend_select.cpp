// Backend selection. Until the GL backend is linked in, "gpu" reports that it is unavailable.
#include "cli/backend_select.hpp"

namespace attnlab::cli {

std::unique_ptr<Backend> select_backend(const std::string& kind, std::ostream& notice) {
  if (kind == "cpu") return make_cpu_backend();
  if (kind == "gpu") throw BackendUnavailable("--backend gpu: this build has no GPU backend");
  if (kind == "auto") {
    (void)notice;
    return make_cpu_backend();
  }
  throw InputError("--backend: unknown backend '" + kind + "' (expected cpu, gpu or auto)");
}

}  // namespace attnlab::cli
