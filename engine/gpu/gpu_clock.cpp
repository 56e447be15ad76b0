// SmClock through NVML's C API, declared here by its documented signatures (nvml.h is not
// installed without NVIDIA's development files, and the library may be absent altogether).
#include "engine/gpu/gpu_clock.hpp"

#include <dlfcn.h>

#include <chrono>
#include <string>

namespace attnlab::gpu {

namespace {

using NvmlDevice = void*;
constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // nvmlClockType_t NVML_CLOCK_SM

template <typename F>
F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

}  // namespace

struct SmClock::Library {
  void* handle = nullptr;
  bool initialized = false;
  int (*init)() = nullptr;
  int (*shutdown)() = nullptr;
  int (*count)(unsigned*) = nullptr;
  int (*by_index)(unsigned, NvmlDevice*) = nullptr;
  int (*name)(NvmlDevice, char*, unsigned) = nullptr;
  int (*clock)(NvmlDevice, int, unsigned*) = nullptr;
  int (*max_clock)(NvmlDevice, int, unsigned*) = nullptr;

  ~Library() {
    if (initialized && shutdown) shutdown();
    if (handle) dlclose(handle);
  }
};

SmClock::SmClock(std::string_view renderer) : lib_(std::make_unique<Library>()) {
  Library& l = *lib_;
  if (renderer.substr(0, 6) != "NVIDIA") return;
  l.handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!l.handle) return;
  l.init = symbol<int (*)()>(l.handle, "nvmlInit_v2");
  l.shutdown = symbol<int (*)()>(l.handle, "nvmlShutdown");
  l.count = symbol<int (*)(unsigned*)>(l.handle, "nvmlDeviceGetCount_v2");
  l.by_index = symbol<int (*)(unsigned, NvmlDevice*)>(l.handle, "nvmlDeviceGetHandleByIndex_v2");
  l.name = symbol<int (*)(NvmlDevice, char*, unsigned)>(l.handle, "nvmlDeviceGetName");
  l.clock = symbol<int (*)(NvmlDevice, int, unsigned*)>(l.handle, "nvmlDeviceGetClockInfo");
  l.max_clock = symbol<int (*)(NvmlDevice, int, unsigned*)>(l.handle, "nvmlDeviceGetMaxClockInfo");
  if (!l.init || !l.shutdown || !l.count || !l.by_index || !l.name || !l.clock || !l.max_clock) return;
  if (l.init() != kNvmlSuccess) return;
  l.initialized = true;
  unsigned devices = 0;
  if (l.count(&devices) != kNvmlSuccess) return;
  for (unsigned i = 0; i < devices; ++i) {
    NvmlDevice d = nullptr;
    char name[96] = {};
    if (l.by_index(i, &d) != kNvmlSuccess || l.name(d, name, sizeof name) != kNvmlSuccess) continue;
    const std::string_view n(name);
    if (!n.empty() && renderer.substr(0, n.size()) == n) {
      device_ = d;
      return;
    }
  }
}

SmClock::~SmClock() = default;

unsigned SmClock::now_mhz() const {
  unsigned mhz = 0;
  if (!device_ || lib_->clock(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return mhz;
}

unsigned SmClock::top_mhz() const {
  unsigned mhz = 0;
  if (!device_ || lib_->max_clock(device_, kNvmlClockSm, &mhz) != kNvmlSuccess) return 0;
  return mhz;
}

ClockSampler::ClockSampler(const SmClock& clock, int period_ms)
    : thread_([this, &clock, period_ms] {
        while (!stop_.load()) {
          if (const unsigned mhz = clock.now_mhz(); mhz > 0) mhz_.push_back(mhz);
          std::this_thread::sleep_for(std::chrono::milliseconds(period_ms));
        }
      }) {}

std::vector<double> ClockSampler::stop() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  return mhz_;
}

}  // namespace attnlab::gpu
