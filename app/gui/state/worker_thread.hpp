// The GUI's background work (a streaming run, a model's forward pass, a large recovery write): a
// thread where the platform has threads (PlatformTraits::threads). A page opened from file:// cannot
// have them (WebAssembly threads need a cross-origin-isolated server), so there the work runs at
// once, inside the call, and the thread returned is empty: the job is done when its constructor
// returns, and every caller's "is it done yet?" polling works unchanged.
#pragma once

#include <thread>
#include <utility>

namespace attnlab::gui {

template <class Work>
std::thread start_worker(bool threaded, Work&& work) {
  if (threaded) return std::thread(std::forward<Work>(work));
  std::forward<Work>(work)();
  return std::thread();
}

}  // namespace attnlab::gui
