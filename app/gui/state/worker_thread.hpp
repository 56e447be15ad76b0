// The GUI's background work (a streaming run, a model's forward pass, a large recovery write): a
// thread on the desktop. A page opened from file:// cannot have threads (WebAssembly threads need
// a cross-origin-isolated server), so in the browser the work runs at once, inside the call, and
// the thread returned is empty: the job is done when its constructor returns, and every caller's
// "is it done yet?" polling works unchanged.
#pragma once

#include <thread>
#include <utility>

namespace attnlab::gui {

template <class Work>
std::thread start_worker(Work&& work) {
#ifdef __EMSCRIPTEN__
  std::forward<Work>(work)();
  return std::thread();
#else
  return std::thread(std::forward<Work>(work));
#endif
}

}  // namespace attnlab::gui
