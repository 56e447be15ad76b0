// The GPU backend's functions for builds without GL compute (ATTNLAB_GL_COMPUTE=OFF: the browser,
// whose WebGL2 has no compute shaders). Every way to a GPU backend says why there is none, so the
// CLI exits 3 and the GUI's Backend menu shows the sentence in place, as on a desktop with no GPU.
#include "engine/gpu/gl_context.hpp"
#include "engine/gpu/gpu_backend.hpp"

namespace attnlab {

namespace {

const char* const kWhy =
    "the GPU backend runs OpenGL 4.3 compute shaders, which WebGL2 does not have: the CPU engine "
    "computes everything here, and the desktop app has the GPU backend";

}  // namespace

std::unique_ptr<Backend> make_gpu_backend_headless(const GpuBackendOptions&) { throw BackendUnavailable(kWhy); }

std::unique_ptr<Backend> make_gpu_backend_on_current_context(const GpuBackendOptions&) {
  throw BackendUnavailable(kWhy);
}

namespace gpu {

std::unique_ptr<BackendBench> make_bench(Backend&) { throw BackendUnavailable(kWhy); }
std::unique_ptr<ScalingSampler> make_scaling_sampler(Backend&) { throw BackendUnavailable(kWhy); }

struct HeadlessContext::State {};

HeadlessContext::HeadlessContext(HeadlessRoute) { throw BackendUnavailable(kWhy); }
HeadlessContext::~HeadlessContext() = default;
HeadlessContext::HeadlessContext(HeadlessContext&&) noexcept = default;
HeadlessContext& HeadlessContext::operator=(HeadlessContext&&) noexcept = default;
void HeadlessContext::make_current() {}
const std::string& HeadlessContext::display_name() const {
  static const std::string none;
  return none;
}

bool headless_gl_available(std::string* why) {
  if (why) *why = kWhy;
  return false;
}

bool current_context_has_compute(std::string* why) {
  if (why) *why = kWhy;
  return false;
}

}  // namespace gpu

}  // namespace attnlab
