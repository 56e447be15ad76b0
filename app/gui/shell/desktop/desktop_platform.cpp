// The desktop's Platform (state/platform.hpp): threads, the in-app file dialog, files written where
// the user chose, an OpenGL 4.3 core context (what the GPU backend wants; 3.3 is what the GUI needs),
// and a frame loop that runs until the window closes.
#include "gui/state/platform.hpp"

#include "gui/shell/gui_command.hpp"

#include <GLFW/glfw3.h>

namespace attnlab::gui {

namespace {

class DesktopPlatform final : public Platform {
public:
  PlatformTraits traits() const override { return PlatformTraits{}; }

  GuiOptions start_options(const GuiOptions& options, std::string&) override { return options; }

  GLFWwindow* open_window(int width, int height, bool vsync, std::string& why) override {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_API);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 4);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    // The window's X11 class is the .desktop entry's StartupWMClass, so docks group it under the
    // menu entry and its icon (assets/desktop/attnlab.desktop).
    glfwWindowHintString(GLFW_X11_CLASS_NAME, "attnlab");
    glfwWindowHintString(GLFW_X11_INSTANCE_NAME, "attnlab");
    const char* title = "Attention Lab";
    GLFWwindow* window = glfwCreateWindow(width, height, title, nullptr, nullptr);
    if (!window) {
      // The GUI itself only needs GL 3.3; the GPU backend is what wants 4.3.
      glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
      glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
      window = glfwCreateWindow(width, height, title, nullptr, nullptr);
    }
    if (!window) {
      why = "no OpenGL 3.3 core context could be created";
      return nullptr;
    }
    glfwMakeContextCurrent(window);
    glfwSwapInterval(vsync ? 1 : 0);
    return window;
  }

  const char* glsl_version() const override { return "#version 330 core"; }
  bool gles() const override { return false; }
  void after_imgui_start(GLFWwindow*) override {}

  bool run_frames(std::function<bool()> frame, std::function<void()>) override {
    while (frame()) {
    }
    return true;
  }

  // Dropped files open as they are; files written for the user are where the user chose, and the
  // notices already say so.
  std::vector<PickedFile> before_frame(std::vector<std::string>&) override { return {}; }
  std::string deliver(const Delivery&) override { return {}; }
  void after_frame(std::uint64_t, const std::filesystem::path&, std::size_t, const std::function<std::string()>&) override {}
  void session_saved(const std::filesystem::path&) override {}

  // The in-app file dialog chooses files here (traits().file_picker is false): never called.
  std::optional<std::string> pick_file(FilePurpose, const std::string&) override { return std::nullopt; }

  std::string export_stage(const Scenario& scenario, const Result& result, const ExportOptions& options,
                           const std::string& path) override {
    attnlab::export_stage(scenario, result, options, path);
    return "Exported " + std::string(stage_name(options.stage)) + " to " + path;
  }

  std::string share_link(const std::string&) override { return {}; }
};

}  // namespace

std::unique_ptr<Platform> make_platform() { return std::make_unique<DesktopPlatform>(); }

}  // namespace attnlab::gui
