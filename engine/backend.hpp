// One interface for the engine's backends (CPU, GL compute), checked against each other in tests.
#pragma once

#include "engine/attention.hpp"

#include <memory>
#include <string_view>

namespace attnlab {

class Backend {
public:
  virtual ~Backend() = default;
  // "cpu" or "gpu".
  virtual std::string_view name() const = 0;
  // A one-line description for status bars and logs ("CPU (Eigen)", "GPU: llvmpipe ...").
  virtual std::string description() const = 0;
  // Every stage of the problem. Throws InputError on bad input.
  virtual Result compute(const Problem& p) = 0;
};

std::unique_ptr<Backend> make_cpu_backend();

}  // namespace attnlab
