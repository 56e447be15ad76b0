// EGL surfaceless context creation. libepoxy aborts the process when an entry point without a
// provider is called, so every extension function is looked up through eglGetProcAddress after
// checking the client extension string, never called through epoxy's resolvers.
#include "engine/gpu/gl_context.hpp"

#include "engine/attention/matrix.hpp"

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <cstring>
#include <string_view>

namespace attnlab::gpu {

namespace {

bool has_extension(const char* list, std::string_view name) {
  if (!list) return false;
  std::string_view all(list);
  size_t pos = 0;
  while (pos < all.size()) {
    size_t end = all.find(' ', pos);
    if (end == std::string_view::npos) end = all.size();
    if (all.substr(pos, end - pos) == name) return true;
    pos = end + 1;
  }
  return false;
}

[[noreturn]] void unavailable(const std::string& why) { throw BackendUnavailable(why); }

}  // namespace

struct HeadlessContext::State {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  // The display is not terminated: EGL hands every caller the same display for the same
  // platform, so terminating it would pull the rug from under other contexts of this process.
  ~State() {
    if (display == EGL_NO_DISPLAY || context == EGL_NO_CONTEXT) return;
    if (eglGetCurrentContext() == context) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display, context);
  }
};

HeadlessContext::HeadlessContext() : state_(std::make_unique<State>()) {
  // libEGL.so.1 is loaded by epoxy at the first EGL call, and a missing one aborts the process
  // there: the linker cannot see it, so a package may install the app without it (scripts/check-deb
  // found this on a clean Debian 12). epoxy_has_egl() tries to load it without aborting.
  if (!epoxy_has_egl()) unavailable("no GPU backend: libEGL.so.1 cannot be loaded (install libegl1)");
  // Client extensions (queried on EGL_NO_DISPLAY) say which platforms exist before any display.
  const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!client) unavailable("no GPU backend: EGL has no client extensions (no EGL driver is installed)");
  if (!has_extension(client, "EGL_EXT_platform_base")) {
    unavailable("no GPU backend: EGL lacks EGL_EXT_platform_base, needed for a headless display");
  }
  using GetPlatformDisplay = EGLDisplay (*)(EGLenum, void*, const EGLint*);
  auto get_platform_display = reinterpret_cast<GetPlatformDisplay>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_platform_display) unavailable("no GPU backend: eglGetPlatformDisplayEXT is not provided by the EGL driver");
  State& s = *state_;
  // Mesa (llvmpipe, real GPUs) offers the surfaceless platform; NVIDIA's EGL offers devices.
  if (has_extension(client, "EGL_MESA_platform_surfaceless")) {
    s.display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  } else if (has_extension(client, "EGL_EXT_platform_device") &&
             (has_extension(client, "EGL_EXT_device_enumeration") || has_extension(client, "EGL_EXT_device_base"))) {
    using QueryDevices = EGLBoolean (*)(EGLint, EGLDeviceEXT*, EGLint*);
    auto query_devices = reinterpret_cast<QueryDevices>(eglGetProcAddress("eglQueryDevicesEXT"));
    EGLDeviceEXT device = nullptr;
    EGLint count = 0;
    if (query_devices && query_devices(1, &device, &count) && count > 0) {
      s.display = get_platform_display(EGL_PLATFORM_DEVICE_EXT, device, nullptr);
    }
  } else {
    unavailable("no GPU backend: EGL offers neither a surfaceless platform (EGL_MESA_platform_surfaceless) nor "
                "devices (EGL_EXT_platform_device)");
  }
  if (s.display == EGL_NO_DISPLAY) unavailable("no GPU backend: EGL could not open a headless display");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(s.display, &major, &minor)) {
    s.display = EGL_NO_DISPLAY;
    unavailable("no GPU backend: EGL could not initialize the headless display");
  }
  const char* display_ext = eglQueryString(s.display, EGL_EXTENSIONS);
  if (!has_extension(display_ext, "EGL_KHR_surfaceless_context")) {
    unavailable("no GPU backend: the EGL display cannot make a context current without a surface");
  }
  if (!eglBindAPI(EGL_OPENGL_API)) unavailable("no GPU backend: EGL does not offer desktop OpenGL");
  EGLConfig config = nullptr;
  if (!has_extension(display_ext, "EGL_KHR_no_config_context")) {
    const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
    EGLint count = 0;
    if (!eglChooseConfig(s.display, want, &config, 1, &count) || count < 1) {
      unavailable("no GPU backend: EGL has no configuration for desktop OpenGL");
    }
  }
  const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                            EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  s.context = eglCreateContext(s.display, config, EGL_NO_CONTEXT, attribs);
  if (s.context == EGL_NO_CONTEXT) unavailable("no GPU backend: the driver cannot create an OpenGL 4.3 core context");
  make_current();
  std::string why;
  if (!current_context_has_compute(&why)) unavailable(why);
}

HeadlessContext::~HeadlessContext() = default;
HeadlessContext::HeadlessContext(HeadlessContext&&) noexcept = default;
HeadlessContext& HeadlessContext::operator=(HeadlessContext&&) noexcept = default;

void HeadlessContext::make_current() {
  if (!eglMakeCurrent(state_->display, EGL_NO_SURFACE, EGL_NO_SURFACE, state_->context)) {
    unavailable("no GPU backend: EGL could not make the OpenGL context current");
  }
}

bool headless_gl_available(std::string* why) {
  try {
    HeadlessContext context;
    return true;
  } catch (const BackendUnavailable& e) {
    if (why) *why = e.what();
    return false;
  }
}

bool current_context_has_compute(std::string* why) {
  const int version = epoxy_gl_version();
  if (version < 43) {
    if (why) {
      *why = "no GPU backend: the OpenGL context is version " + std::to_string(version / 10) + "." +
             std::to_string(version % 10) + " but compute shaders need 4.3";
    }
    return false;
  }
  return true;
}

}  // namespace attnlab::gpu
