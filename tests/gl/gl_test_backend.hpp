// One headless GPU backend shared by the GL tests of this executable (creating a context and
// compiling the kernels takes most of a second on llvmpipe).
#pragma once

#include "engine/gpu/gpu_backend.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace attnlab::testing {

struct SharedGpu {
  std::unique_ptr<Backend> backend;
  std::string why;
};

inline SharedGpu& shared_gpu() {
  static SharedGpu gpu = [] {
    SharedGpu g;
    try {
      g.backend = make_gpu_backend_headless();
    } catch (const BackendUnavailable& e) {
      g.why = e.what();
    }
    return g;
  }();
  return gpu;
}

}  // namespace attnlab::testing

// Skips the test with the reason when no GL 4.3 context can be made (CI always has llvmpipe).
#define ATTNLAB_REQUIRE_GPU(var)                                              \
  auto& var##_shared = ::attnlab::testing::shared_gpu();                      \
  if (!var##_shared.backend) GTEST_SKIP() << "no GL context: " << var##_shared.why; \
  ::attnlab::Backend& var = *var##_shared.backend

// A backend of the test's own whose buffers hold at most `bytes`, so that problems split into row
// and key chunks; skips the test with the reason when no GL 4.3 context can be made.
#define ATTNLAB_REQUIRE_GPU_WITH_BUFFER_LIMIT(var, bytes)                      \
  std::unique_ptr<::attnlab::Backend> var##_own;                              \
  try {                                                                       \
    ::attnlab::GpuBackendOptions var##_options;                               \
    var##_options.max_buffer_bytes = (bytes);                                 \
    var##_own = ::attnlab::make_gpu_backend_headless(var##_options);          \
  } catch (const ::attnlab::BackendUnavailable& e) {                          \
    GTEST_SKIP() << "no GL context: " << e.what();                            \
  }                                                                           \
  ::attnlab::Backend& var = *var##_own
