// The browser's Platform (app/gui/state/platform.hpp): C++ here, JavaScript in browser_glue.js (the
// `attnlabWeb` object), joined by EM_JS calls one way and exported C functions the other (the
// picker's files, the page being hidden, the tests' read-outs).
#include "web/web_platform.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/compute_timing.hpp"
#include "gui/shell/gui_command.hpp"
#include "gui/state/platform.hpp"
#include "gui/state/share_link.hpp"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <emscripten.h>
#include <emscripten/html5.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <utility>

namespace attnlab::web {

namespace fs = std::filesystem;

namespace {

// Files the picker delivered (in the page's in-memory file system), waiting for the next frame
// (JavaScript calls in between frames).
std::vector<gui::PickedFile> g_picked;

// The recovery file's version last copied to local storage (after_frame).
std::uint64_t g_persisted_version = 0;
bool g_persisted_once = false;
bool g_announced = false;
// The last frame's heatmap layout (attnlab_web_layout).
std::string g_layout;
std::string g_timing;  // the last attnlab_web_compute_timing answer

// Saves the session (given to Platform::run_frames): the page calls it when hidden.
std::function<void()> g_save_session;
// The frame (given to Platform::run_frames), which the page calls once per display refresh.
std::function<bool()> g_frame;

// install_key_latch's state: keys pressed since the frame began, releases held until it ends.
struct KeyRelease {
  int key = 0, scancode = 0, mods = 0;
};
GLFWwindow* g_key_window = nullptr;
std::vector<int> g_keys_down_this_frame;
std::vector<KeyRelease> g_releases_after_frame;

std::string lower_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// A fresh folder for one batch of files, so two uploads of "scenario.json" never collide.
fs::path fresh_folder(const fs::path& parent) {
  std::error_code ec;
  for (int k = 1;; ++k) {
    const fs::path dir = parent / std::to_string(k);
    if (!fs::exists(dir, ec)) {
      fs::create_directories(dir, ec);
      return dir;
    }
  }
}

const char* accept_for(gui::FilePurpose p) {
  switch (p) {
    case gui::FilePurpose::OpenScenario: return ".json,application/json";
    case gui::FilePurpose::OpenMatrixQ:
    case gui::FilePurpose::OpenMatrixK:
    case gui::FilePurpose::OpenMatrixV: return ".npy,.csv";
    case gui::FilePurpose::OpenModel: return ".safetensors,.json,.txt";
    default: return "";
  }
}

// clang-format off
EM_JS(void, js_pick_file, (int purpose, const char* accept, int multiple), {
  attnlabWeb.pickFile(purpose, UTF8ToString(accept), multiple !== 0);
});
EM_JS(void, js_download, (const char* path, const char* name, const char* mime), {
  attnlabWeb.download(UTF8ToString(path), UTF8ToString(name), UTF8ToString(mime));
});
EM_JS(void, js_download_png_from_svg, (const char* svg_path, const char* name, int width_px), {
  attnlabWeb.downloadPngFromSvg(UTF8ToString(svg_path), UTF8ToString(name), width_px);
});
EM_JS(void, js_persist_files, (const char* dir, const char* names), {
  attnlabWeb.persistFiles(UTF8ToString(dir), UTF8ToString(names).split("\n"));
});
EM_JS(char*, js_url_fragment, (), {
  return allocateUTF8(attnlabWeb.urlFragment());
});
EM_JS(char*, js_share_link, (const char* fragment), {
  return allocateUTF8(attnlabWeb.shareLink(UTF8ToString(fragment)));
});
EM_JS(void, js_ready, (), {
  attnlabWeb.ready();
});
// clang-format on

std::string take_js_string(char* s) {
  std::string out = s ? s : "";
  std::free(s);
  return out;
}

const char* mime_for(const fs::path& name) {
  const std::string ext = lower_extension(name);
  if (ext == ".json") return "application/json";
  if (ext == ".csv") return "text/csv";
  if (ext == ".svg") return "image/svg+xml";
  if (ext == ".png") return "image/png";
  if (ext == ".tex") return "application/x-tex";
  return "application/octet-stream";
}

std::string url_fragment() { return take_js_string(js_url_fragment()); }

// The window's options with the page's URL fragment applied (gui/state/share_link.hpp): `#preset=NAME`
// opens that lesson, `#scenario=<base64url JSON>` that scenario (written to the in-memory file system
// and opened as a file would be), `&exercise=SEED` its lesson's exercise at that seed. What cannot be
// read is said in `error` and left out; the rest applies.
gui::GuiOptions options_from_url(const gui::GuiOptions& options, std::string& error) {
  gui::GuiOptions out = options;
  const gui::LinkFragment link = gui::read_link_fragment(url_fragment());
  error = link.refused;
  if (!link.preset.empty()) {
    out.preset = link.preset;
  } else if (!link.scenario_json.empty()) {
    const fs::path file = "/shared/scenario.json";
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    try {
      write_file_atomic(file, link.scenario_json);
    } catch (const InputError& e) {
      error = e.what();
      return options;
    }
    out.scenario = file.string();
  }
  out.exercise_seed = link.exercise_seed;
  return out;
}

// Files dropped onto the page together: a model's files become one folder, which the GUI opens when
// its config.json came too (a Llama-family model's tokenizer.json, the shards of
// model.safetensors.index.json), else through its .safetensors; everything else passes through.
std::vector<std::string> group_dropped_model(const std::vector<std::string>& paths) {
  const auto is_weights = [](const std::string& p) { return lower_extension(p) == ".safetensors"; };
  if (std::none_of(paths.begin(), paths.end(), is_weights)) return paths;
  const fs::path folder = fresh_folder("/uploads/models");
  std::vector<std::string> out;
  std::error_code ec;
  bool config = false;
  for (const std::string& p : paths) {
    const fs::path moved = folder / fs::path(p).filename();
    fs::rename(p, moved, ec);
    if (ec) fs::copy_file(p, moved, fs::copy_options::overwrite_existing, ec);
    if (is_weights(p)) out.push_back(moved.string());
    config = config || moved.filename() == "config.json";
  }
  return config ? std::vector<std::string>{folder.string()} : out;
}

// Where files the user saves go before they are offered as downloads.
fs::path download_dir() { return "/downloads"; }

// Offers a file of the in-memory file system as a download named `name`.
void offer_download(const fs::path& path, const std::string& name) {
  js_download(path.c_str(), name.c_str(), mime_for(name));
}

// Offers every file of a folder as a download, by its own name (a trained model's files).
void offer_folder_download(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) offer_download(f, f.filename().string());
}

// A stage as a download named `name` (its extension picks the format). PNG is drawn by the browser
// from the engine's SVG (`width_px`: 0 for two pixels per point); PDF needs the desktop and says so.
void download_export(const Scenario& scenario, const Result& result, const ExportOptions& options,
                     const std::string& name) {
  const fs::path file = download_dir() / fs::path(name).filename();
  std::error_code ec;
  fs::create_directories(download_dir(), ec);
  const ExportFormat format = export_format_for(file);
  if (format == ExportFormat::Png) {
    // The engine's figure as SVG, drawn by the browser: the same layout and colours as every
    // other export, and no rasterizer of our own.
    const fs::path svg = fs::path(file).replace_extension(".svg");
    write_file_atomic(svg, export_bytes(scenario, result, options, ExportFormat::Svg));
    js_download_png_from_svg(svg.c_str(), file.filename().c_str(), options.width_px);
    return;
  }
  write_file_atomic(file, export_bytes(scenario, result, options, format));
  offer_download(file, file.filename().string());
}

// The settings folder is restored from local storage before main() runs; this writes its files back
// (session.json, recovery.json, imgui.ini; a file no longer there is removed from storage).
void persist_config_dir(const fs::path& dir) {
  if (dir.empty()) return;
  js_persist_files(dir.c_str(), "session.json\nrecovery.json\nimgui.ini");
}

// Keys pressed and released between two frames: ImGui 1.86 sees a key only as down or up when a
// frame starts, so a quick tap during a slow frame (a model training in the page) would be lost.
// Installed after ImGui's GLFW callbacks; a release that arrives in the frame of its press is
// passed on after that frame (release_latched_keys). Mouse buttons need nothing: ImGui latches them.
void install_key_latch(GLFWwindow* window) {
  g_key_window = window;
  glfwSetKeyCallback(window, [](GLFWwindow* w, int key, int scancode, int action, int mods) {
    if (action == GLFW_PRESS) g_keys_down_this_frame.push_back(key);
    const bool same_frame = std::find(g_keys_down_this_frame.begin(), g_keys_down_this_frame.end(), key) != g_keys_down_this_frame.end();
    if (action == GLFW_RELEASE && same_frame) {
      g_releases_after_frame.push_back({key, scancode, mods});
      return;
    }
    ImGui_ImplGlfw_KeyCallback(w, key, scancode, action, mods);
  });
}

// The frame has seen every key pressed since the last one: pass on their releases now.
void release_latched_keys() {
  g_keys_down_this_frame.clear();
  for (const KeyRelease& r : std::exchange(g_releases_after_frame, {})) {
    ImGui_ImplGlfw_KeyCallback(g_key_window, r.key, r.scancode, GLFW_RELEASE, r.mods);
  }
}

// The canvas fills the browser window (shell.html); its drawing buffer follows when that changes.
void follow_canvas_size(GLFWwindow* window) {
  double css_w = 0, css_h = 0;
  int w = 0, h = 0;
  emscripten_get_element_css_size("#canvas", &css_w, &css_h);
  glfwGetWindowSize(window, &w, &h);
  if (css_w >= 1 && css_h >= 1 && (static_cast<int>(css_w) != w || static_cast<int>(css_h) != h)) {
    glfwSetWindowSize(window, static_cast<int>(css_w), static_cast<int>(css_h));
  }
}

// A file the app wrote for the user, offered as a download; returns the sentence that says so.
std::string deliver_download(const gui::Delivery& d) {
  const std::string name = fs::path(d.path).filename().string();
  switch (d.kind) {
    case gui::DeliveryKind::Scenario:
    case gui::DeliveryKind::Table:
      offer_download(d.path, name);
      return "Downloaded " + name;
    case gui::DeliveryKind::WindowScreenshot:
      offer_download(d.path, name);
      return "Downloaded the window as " + name;
    case gui::DeliveryKind::TrainedModel:
      // The browser keeps downloads where it keeps them: the folder's files, one download each.
      offer_folder_download(d.path);
      return "Saved the model at step " + std::to_string(d.step) +
             " as three downloads (config.json, vocab.json, model.safetensors); drop them onto the page together to open it again";
  }
  return {};
}

void call_frame(void*) { g_frame(); }

class BrowserPlatform final : public gui::Platform {
public:
  gui::PlatformTraits traits() const override {
    gui::PlatformTraits t;
    t.threads = false;  // a page opened from file:// is not cross-origin isolated
    t.file_picker = true;
    t.folders = false;
    t.quit = false;
    t.share_links = true;
    return t;
  }

  gui::GuiOptions start_options(const gui::GuiOptions& options, std::string& error) override {
    return options_from_url(options, error);
  }

  // The page's canvas with a WebGL2 context (OpenGL ES 3.0), sized to the browser window.
  GLFWwindow* open_window(int width, int height, bool, std::string& why) override {
    glfwWindowHint(GLFW_CLIENT_API, GLFW_OPENGL_ES_API);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 0);
    window_ = glfwCreateWindow(width, height, "Attention Lab", nullptr, nullptr);
    if (!window_) {
      why = "no WebGL2 context could be created";
      return nullptr;
    }
    glfwMakeContextCurrent(window_);
    return window_;
  }

  const char* glsl_version() const override { return "#version 300 es"; }
  bool gles() const override { return true; }

  void after_imgui_start(GLFWwindow* window) override {
    start_item_probe();
    install_key_latch(window);
  }

  bool run_frames(std::function<bool()> frame, std::function<void()> save_session) override {
    g_frame = std::move(frame);
    g_save_session = std::move(save_session);
    emscripten_set_main_loop_arg(call_frame, nullptr, 0, false);
    return false;
  }

  // The files the picker delivered, for the shell to use as the desktop's file dialog would; a
  // dropped model's files become one folder.
  std::vector<gui::PickedFile> before_frame(std::vector<std::string>& dropped) override {
    if (window_) follow_canvas_size(window_);
    if (!dropped.empty()) dropped = group_dropped_model(dropped);
    return std::exchange(g_picked, {});
  }

  // Files written for the user become downloads.
  std::string deliver(const gui::Delivery& d) override { return deliver_download(d); }

  // The first frame announces itself; a changed recovery file goes to local storage, so a tab that
  // is killed still offers its work back on the next visit.
  void after_frame(std::uint64_t recovery_version, const fs::path& config_dir, std::size_t frames_drawn,
                   const std::function<std::string()>& layout) override {
    release_latched_keys();
    g_layout = layout();
    if (!g_announced && frames_drawn > 0) {
      g_announced = true;
      js_ready();
    }
    if (!g_persisted_once || recovery_version != g_persisted_version) {
      g_persisted_once = true;
      g_persisted_version = recovery_version;
      persist_config_dir(config_dir);
    }
  }

  void session_saved(const fs::path& config_dir) override { persist_config_dir(config_dir); }

  // Opening asks the browser's picker (the file arrives on a later frame); a save is written to the
  // downloads folder and offered as a download.
  std::optional<std::string> pick_file(gui::FilePurpose purpose, const std::string& save_name) override {
    using gui::FilePurpose;
    if (purpose == FilePurpose::SaveScenario || purpose == FilePurpose::SaveLessonCard || purpose == FilePurpose::SaveHeadLinks) {
      return (download_dir() / save_name).string();
    }
    if (purpose == FilePurpose::SaveTrainedModel) {
      // A model is a folder: its files are offered one by one once written (poll_training). An
      // earlier save of the same step was downloaded already: its copy here is replaced.
      const fs::path dir = download_dir() / save_name;
      std::error_code ec;
      fs::remove_all(dir, ec);
      return dir.string();
    }
    js_pick_file(static_cast<int>(purpose), accept_for(purpose), purpose == FilePurpose::OpenModel ? 1 : 0);
    return std::nullopt;
  }

  std::string export_stage(const Scenario& scenario, const Result& result, const ExportOptions& options,
                           const std::string& path) override {
    const std::string name = fs::path(path).filename().string();
    download_export(scenario, result, options, name);
    return "Downloaded " + std::string(stage_name(options.stage)) + " as " + name;
  }

  std::string share_link(const std::string& fragment) override { return take_js_string(js_share_link(fragment.c_str())); }

private:
  GLFWwindow* window_ = nullptr;
};

}  // namespace

// Called by browser_glue.js (unmangled names, inside the namespace for its file-local state).
extern "C" {

// The picker's file (already written to the in-memory file system) for `purpose`.
EMSCRIPTEN_KEEPALIVE void attnlab_web_open_file(const char* path, int purpose) {
  g_picked.push_back({path, static_cast<gui::FilePurpose>(purpose)});
}

// The page is being hidden or closed: save the session now (there is no "exit" in a browser).
EMSCRIPTEN_KEEPALIVE void attnlab_web_save_session() {
  if (g_save_session) g_save_session();
}

// Where the last frame drew each heatmap, and the document's size: JSON, valid until the next frame.
EMSCRIPTEN_KEEPALIVE const char* attnlab_web_layout() { return g_layout.c_str(); }

// The browser's side of bench/web_bench.mjs: the same timings as the native bench/compute_timing_main.cpp
// (engine/lessons/compute_timing.hpp).
EMSCRIPTEN_KEEPALIVE const char* attnlab_web_compute_timing(int runs) {
  g_timing = compute_timing_json(runs);
  return g_timing.c_str();
}

}  // extern "C"

}  // namespace attnlab::web

std::unique_ptr<attnlab::gui::Platform> attnlab::gui::make_platform() { return std::make_unique<attnlab::web::BrowserPlatform>(); }
