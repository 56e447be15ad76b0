// Headless EGL context creation: on an EGL device or Mesa's surfaceless platform. libepoxy aborts
// the process when an entry point without a provider is called, so every extension function is
// looked up through eglGetProcAddress after checking the client extension string, never called
// through epoxy's resolvers.
#include "engine/gpu/gl_context.hpp"

#include "engine/attention/matrix.hpp"

#include <epoxy/egl.h>
#include <epoxy/gl.h>

#include <cstring>
#include <string_view>
#include <vector>

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

using GetPlatformDisplay = EGLDisplay (*)(EGLenum, void*, const EGLint*);

// One display a headless context may be opened on.
struct Candidate {
  EGLenum platform;
  void* native;
  std::string name;
};

// The displays `route` allows, most preferred first (HeadlessRoute in gl_context.hpp). EGL devices
// come from every installed driver (libglvnd asks each vendor); Mesa marks its CPU one with
// EGL_MESA_device_software.
std::vector<Candidate> candidates(const char* client, HeadlessRoute route) {
  std::vector<Candidate> hardware, software;
  const bool base = has_extension(client, "EGL_EXT_device_base");
  const bool enumeration = base || has_extension(client, "EGL_EXT_device_enumeration");
  if (has_extension(client, "EGL_EXT_platform_device") && enumeration) {
    using QueryDevices = EGLBoolean (*)(EGLint, EGLDeviceEXT*, EGLint*);
    using QueryDeviceString = const char* (*)(EGLDeviceEXT, EGLint);
    auto query_devices = reinterpret_cast<QueryDevices>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto query_string = base || has_extension(client, "EGL_EXT_device_query")
                            ? reinterpret_cast<QueryDeviceString>(eglGetProcAddress("eglQueryDeviceStringEXT"))
                            : nullptr;
    EGLint count = 0;
    if (query_devices && query_devices(0, nullptr, &count) && count > 0) {
      std::vector<EGLDeviceEXT> devices(static_cast<size_t>(count));
      if (!query_devices(count, devices.data(), &count)) count = 0;
      for (EGLint i = 0; i < count; ++i) {
        EGLDeviceEXT device = devices[static_cast<size_t>(i)];
        const char* extensions = query_string ? query_string(device, EGL_EXTENSIONS) : nullptr;
        const bool is_software = has_extension(extensions, "EGL_MESA_device_software");
        std::string name = "EGL device " + std::to_string(i + 1) + " of " + std::to_string(count);
        if (extensions) name += is_software ? " (software)" : " (hardware)";
        (is_software ? software : hardware).push_back({EGL_PLATFORM_DEVICE_EXT, device, std::move(name)});
      }
    }
  }
  std::vector<Candidate> all = std::move(hardware);
  if (route == HeadlessRoute::Best && has_extension(client, "EGL_MESA_platform_surfaceless")) {
    all.push_back({EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, "EGL surfaceless platform"});
  }
  all.insert(all.end(), software.begin(), software.end());
  return all;
}

}  // namespace

struct HeadlessContext::State {
  EGLDisplay display = EGL_NO_DISPLAY;
  EGLContext context = EGL_NO_CONTEXT;
  std::string display_name;
  ~State() { release(); }

  // The display is not terminated: EGL hands every caller the same display for the same
  // platform, so terminating it would pull the rug from under other contexts of this process.
  void release() {
    if (display != EGL_NO_DISPLAY && context != EGL_NO_CONTEXT) {
      if (eglGetCurrentContext() == context) eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
      eglDestroyContext(display, context);
    }
    display = EGL_NO_DISPLAY;
    context = EGL_NO_CONTEXT;
  }

  // Opens a GL 4.3+ core context with compute shaders on `candidate` and makes it current. On
  // failure leaves nothing open and returns the sentence saying why; on success returns "".
  std::string open(const Candidate& candidate, GetPlatformDisplay get_platform_display) {
    std::string why = open_or_say_why(candidate, get_platform_display);
    if (why.empty()) {
      display_name = candidate.name;
    } else {
      release();
    }
    return why;
  }

private:
  std::string open_or_say_why(const Candidate& candidate, GetPlatformDisplay get_platform_display) {
    const std::string on = " (" + candidate.name + ")";
    display = get_platform_display(candidate.platform, candidate.native, nullptr);
    if (display == EGL_NO_DISPLAY) return "no GPU backend: EGL could not open a headless display" + on;
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
      return "no GPU backend: EGL could not initialize the headless display" + on;
    }
    const char* display_ext = eglQueryString(display, EGL_EXTENSIONS);
    if (!has_extension(display_ext, "EGL_KHR_surfaceless_context")) {
      return "no GPU backend: the EGL display cannot make a context current without a surface" + on;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) return "no GPU backend: EGL does not offer desktop OpenGL" + on;
    EGLConfig config = nullptr;
    if (!has_extension(display_ext, "EGL_KHR_no_config_context")) {
      const EGLint want[] = {EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
      EGLint count = 0;
      if (!eglChooseConfig(display, want, &config, 1, &count) || count < 1) {
        return "no GPU backend: EGL has no configuration for desktop OpenGL" + on;
      }
    }
    const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 3,
                              EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    context = eglCreateContext(display, config, EGL_NO_CONTEXT, attribs);
    if (context == EGL_NO_CONTEXT) return "no GPU backend: the driver cannot create an OpenGL 4.3 core context" + on;
    if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context)) {
      return "no GPU backend: EGL could not make the OpenGL context current" + on;
    }
    std::string why;
    if (!current_context_has_compute(&why)) return why + on;
    return {};
  }
};

HeadlessContext::HeadlessContext(HeadlessRoute route) : state_(std::make_unique<State>()) {
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
  auto get_platform_display = reinterpret_cast<GetPlatformDisplay>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (!get_platform_display) unavailable("no GPU backend: eglGetPlatformDisplayEXT is not provided by the EGL driver");
  const std::vector<Candidate> displays = candidates(client, route);
  if (displays.empty()) {
    unavailable(route == HeadlessRoute::Best
                    ? "no GPU backend: EGL offers neither devices (EGL_EXT_platform_device) nor a surfaceless "
                      "platform (EGL_MESA_platform_surfaceless)"
                    : "no GPU backend: EGL offers no devices (EGL_EXT_platform_device)");
  }
  std::string first_why;
  for (const Candidate& candidate : displays) {
    std::string why = state_->open(candidate, get_platform_display);
    if (why.empty()) return;
    if (first_why.empty()) first_why = std::move(why);
  }
  unavailable(first_why);
}

HeadlessContext::~HeadlessContext() = default;
HeadlessContext::HeadlessContext(HeadlessContext&&) noexcept = default;
HeadlessContext& HeadlessContext::operator=(HeadlessContext&&) noexcept = default;

const std::string& HeadlessContext::display_name() const { return state_->display_name; }

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
