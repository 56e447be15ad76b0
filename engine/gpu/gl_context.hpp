// A headless OpenGL 4.3 core context through EGL (Mesa surfaceless, or NVIDIA's device platform), for
// the CLI and the tests; the GUI uses its own GLFW context instead.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace attnlab::gpu {

// Owns an EGL display and a GL 4.3+ core context with no surface. Move-only.
class HeadlessContext {
public:
  // Creates the context and makes it current on this thread. Throws BackendUnavailable with a
  // sentence saying why when EGL, the surfaceless platform or GL 4.3 is missing.
  HeadlessContext();
  ~HeadlessContext();
  HeadlessContext(HeadlessContext&&) noexcept;
  HeadlessContext& operator=(HeadlessContext&&) noexcept;
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  // Makes the context current on the calling thread again (after another context was used).
  void make_current();

private:
  struct State;
  std::unique_ptr<State> state_;
};

// True when a headless GL 4.3 context can be created here; otherwise false and `why` (if given)
// gets the sentence that HeadlessContext would throw. Creates and destroys a context to find out.
bool headless_gl_available(std::string* why = nullptr);

// True when the GL context current on this thread is 4.3+ with compute shaders.
bool current_context_has_compute(std::string* why = nullptr);

// True for renderers that run on the CPU (Mesa's llvmpipe and softpipe, SwiftShader): they have
// compute shaders but are slower than the CPU engine, so `auto` does not pick them.
bool is_software_renderer(std::string_view renderer);

}  // namespace attnlab::gpu
