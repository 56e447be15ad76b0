// Choosing the engine backend for --backend cpu|gpu|auto.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/gpu/gpu_backend.hpp"

#include <memory>
#include <ostream>
#include <string>

namespace attnlab::cli {

// "cpu" -> CPU; "gpu" -> GL compute or BackendUnavailable; "auto" -> GPU where a GL 4.3
// context exists, else CPU with a one-line notice on `notice`. Unknown names throw InputError.
// `gpu` configures the GPU backend where one is made.
std::unique_ptr<Backend> select_backend(const std::string& kind, std::ostream& notice,
                                        const GpuBackendOptions& gpu = {});

}  // namespace attnlab::cli
