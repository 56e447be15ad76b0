// An NVIDIA card's SM clock, read through NVIDIA's management library (libnvidia-ml.so.1, which the
// driver installs; loaded at run time, so it is never a build dependency) while the bench times the
// card: a card given short bursts of work stays near its idle clock, and the bench says so.
#pragma once

#include <atomic>
#include <memory>
#include <string_view>
#include <thread>
#include <vector>

namespace attnlab::gpu {

class SmClock {
public:
  // The NVIDIA device whose name the GL renderer's begins with ("NVIDIA H200" for "NVIDIA
  // H200/PCIe/SSE2"; the first of several alike). available() is false without the library or
  // such a device (every other renderer).
  explicit SmClock(std::string_view renderer);
  ~SmClock();
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  bool available() const { return device_ != nullptr; }
  unsigned now_mhz() const;  // the SM clock now (0 when it cannot be read)
  unsigned top_mhz() const;  // the SM clock's maximum

  struct Library;

private:
  std::unique_ptr<Library> lib_;
  void* device_ = nullptr;
};

// Samples a clock every `period_ms` on a thread of its own from construction to stop().
class ClockSampler {
public:
  ClockSampler(const SmClock& clock, int period_ms);
  ~ClockSampler() { stop(); }
  ClockSampler(const ClockSampler&) = delete;
  ClockSampler& operator=(const ClockSampler&) = delete;
  // The samples so far, in MHz (the thread ends first).
  std::vector<double> stop();

private:
  std::atomic<bool> stop_{false};
  std::vector<double> mhz_;
  std::thread thread_;
};

}  // namespace attnlab::gpu
