// What differs between the desktop app and the browser page (docs/WEB.md): background threads, how
// files are chosen and handed to the user, exports, the window and its frame loop. One interface,
// two implementations: shell/desktop_platform.cpp and web/web_platform.cpp (CMake links one of them),
// so no file of the GUI asks which build it is in.
#pragma once

#include "engine/figures/export.hpp"
#include "engine/io/scenario.hpp"
#include "gui/state/view_settings.hpp"

#include <functional>
#include <memory>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace attnlab::gui {

struct GuiOptions;  // shell/gui_command.hpp
struct Services;    // services.hpp

// A file the platform's picker delivered, and what it was picked for.
struct PickedFile {
  std::string path;
  FilePurpose purpose = FilePurpose::None;
};

class Platform {
public:
  virtual ~Platform() = default;

  // What the platform can do, as plain data every action can read (AppState::platform).
  virtual PlatformTraits traits() const = 0;

  // The window's options with what the platform adds: the browser's URL fragment (#preset=,
  // #scenario=, &exercise=; share_link.hpp). What of a fragment cannot be read is left out and said
  // in `error`.
  virtual GuiOptions start_options(const GuiOptions& options, std::string& error) = 0;
  // A window `width` × `height` with its GL context current (GLFW is initialized), or null with
  // `why` saying what could not be had.
  virtual GLFWwindow* open_window(int width, int height, bool vsync, std::string& why) = 0;
  // The GLSL version line ImGui's OpenGL3 backend compiles its shaders with.
  virtual const char* glsl_version() const = 0;
  // Whether GL is OpenGL ES (WebGL2): shaders are then rewritten for it (shader_sources.hpp).
  virtual bool gles() const = 0;
  // Once ImGui's context and backends exist (the browser latches keys and records items' places).
  virtual void after_imgui_start(GLFWwindow* window) = 0;
  // Runs `frame` until it returns false (the desktop, returning true), or hands it to the page, which
  // calls it once per display refresh after this returns (the browser, returning false: the caller
  // must then keep everything `frame` uses alive). `save_session` saves the session now (the page
  // calls it when it is hidden or closed).
  virtual bool run_frames(std::function<bool()> frame, std::function<void()> save_session) = 0;
  // Before each frame: the files the platform's picker delivered since the last, each for its purpose
  // (the shell uses them as the in-app dialog's Open would), and the files dropped on the window as
  // the app should open them (the browser makes a dropped model's files one folder).
  virtual std::vector<PickedFile> before_frame(std::vector<std::string>& dropped) = 0;
  // Hands over a file the app wrote for the user (a download in the browser) and returns the sentence
  // that says where it went, or empty where the app's own notice already says so (the desktop).
  virtual std::string deliver(const Delivery& delivery) = 0;
  // After each frame: the first frame announced; `recovery_version`, the document version the recovery
  // file in `config_dir` holds (the browser copies a new one to local storage). `layout` is where the
  // frame drew each heatmap (the screenshot tests' JSON), made only when the platform asks for it.
  virtual void after_frame(std::uint64_t recovery_version, const std::filesystem::path& config_dir, std::size_t frames_drawn,
                           const std::function<std::string()>& layout) = 0;
  // After the session was saved in `config_dir` (the browser keeps it in local storage).
  virtual void session_saved(const std::filesystem::path& config_dir) = 0;

  // Asks for a file for `purpose` (only where traits().file_picker). Opening asks the browser's picker:
  // the file arrives in a later before_frame, and this returns nothing. A save is a download: this
  // returns the path to write to at once, named `save_name`.
  virtual std::optional<std::string> pick_file(FilePurpose purpose, const std::string& save_name) = 0;
  // Writes a stage's export to `path` (the browser: a download of that file name; PNG drawn by the
  // browser from the engine's SVG) and returns the sentence that says where it went. Throws
  // InputError.
  virtual std::string export_stage(const Scenario& scenario, const Result& result, const ExportOptions& options,
                                   const std::string& path) = 0;
  // A link with this fragment (share_link.hpp's share_fragment: the scenario, and the exercise shown),
  // put where the user can copy it (only where traits().share_links); empty elsewhere.
  virtual std::string share_link(const std::string& fragment) = 0;
};

// The platform this build runs on.
std::unique_ptr<Platform> make_platform();

}  // namespace attnlab::gui
