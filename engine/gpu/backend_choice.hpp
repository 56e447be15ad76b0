// Which backend `--backend cpu|gpu|auto` and the GUI's Backend menu give: the one policy both share.
#pragma once

#include "engine/attention/backend.hpp"

#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace attnlab {

enum class BackendChoice { Cpu, Gpu, Auto };

// "cpu", "gpu" or "auto"; anything else throws InputError naming `where`.
BackendChoice parse_backend_choice(std::string_view name, std::string_view where);

struct ChosenBackend {
  std::unique_ptr<Backend> backend;
  // Why `auto` took the CPU: no GPU could be had (e.what()), or the GPU is a software renderer
  // (Mesa's llvmpipe), which is the slower of two CPU engines. Empty otherwise.
  std::string why_cpu;
  bool software_renderer = false;  // why_cpu names a software renderer, not a missing GPU
};

// cpu: the CPU backend. gpu: make_gpu(), whose BackendUnavailable propagates. auto: make_gpu()
// where it is a hardware GPU, else the CPU with why_cpu set. make_gpu makes the GPU backend the
// caller can have (headless EGL for the command line, the window's context for the GUI).
ChosenBackend choose_backend(BackendChoice choice, const std::function<std::unique_ptr<Backend>()>& make_gpu);

}  // namespace attnlab
