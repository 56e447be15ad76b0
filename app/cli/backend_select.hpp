// Choosing the engine backend for --backend cpu|gpu|auto.
#pragma once

#include "engine/attention/backend.hpp"

#include <memory>
#include <ostream>
#include <string>

namespace attnlab::cli {

// "cpu" -> CPU; "gpu" -> GL compute or BackendUnavailable; "auto" -> GPU where a GL 4.3
// context exists, else CPU with a one-line notice on `notice`. Unknown names throw InputError.
std::unique_ptr<Backend> select_backend(const std::string& kind, std::ostream& notice);

}  // namespace attnlab::cli
