// Which backend `--backend cpu|gpu|auto` and the GUI's Backend menu give: the one policy both share;
// and what goes with a backend of each kind (its bench, the scaling lesson's sampler, a way to make
// one on another thread), chosen by BackendKind.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/attention/bench.hpp"
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/scaling.hpp"

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

// The bench of `backend` (`attnlab bench`): the CPU's fast paths and FMA probe, or the GPU's
// kernels and probe on the backend's own device.
std::unique_ptr<BackendBench> make_bench(Backend& backend);

// The scaling lesson's sampler (Exercise 2.3.1) on `backend`'s device.
std::unique_ptr<ScalingSampler> make_scaling_sampler(Backend& backend);

// Makes a backend of `kind` on the thread that calls `make` (work off the GUI's thread: its
// streaming job). GPU: on a headless context of that thread's own, since the window's context
// belongs to the window's thread; BackendUnavailable when none can be made there.
struct BackendFactory {
  BackendKind kind = BackendKind::Cpu;
  std::function<std::unique_ptr<Backend>()> make;
};
BackendFactory headless_backend_factory(BackendKind kind);

}  // namespace attnlab
