// A headless OpenGL 4.3 core context through EGL (an EGL device, or Mesa's surfaceless platform), for
// the CLI and the tests; the GUI uses its own GLFW context instead.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace attnlab::gpu {

// The ways to a display that a headless context may take.
enum class HeadlessRoute {
  // A hardware EGL device (EGL_EXT_platform_device: NVIDIA's EGL, Mesa's GPU render nodes), else
  // Mesa's surfaceless platform (llvmpipe on a machine with no GPU), else a software EGL device.
  Best,
  // EGL devices only, hardware before software: the route NVIDIA's EGL takes, which the tests run
  // on Mesa's software device where there is no GPU.
  EglDevice,
};

// Owns an EGL display and a GL 4.3+ core context with no surface. Move-only.
class HeadlessContext {
public:
  // Creates the context and makes it current on this thread, trying the displays of `route` in
  // order. Throws BackendUnavailable with a sentence saying why when EGL, a headless display or
  // GL 4.3 is missing (the most preferred display's reason when several were tried).
  explicit HeadlessContext(HeadlessRoute route = HeadlessRoute::Best);
  ~HeadlessContext();
  HeadlessContext(HeadlessContext&&) noexcept;
  HeadlessContext& operator=(HeadlessContext&&) noexcept;
  HeadlessContext(const HeadlessContext&) = delete;
  HeadlessContext& operator=(const HeadlessContext&) = delete;

  // Makes the context current on the calling thread again (after another context was used).
  void make_current();

  // The display this context is on, in words: "EGL device 1 of 2 (hardware)", "EGL surfaceless
  // platform".
  const std::string& display_name() const;

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
