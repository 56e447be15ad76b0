// The browser's side of the GUI's edges (web/web_platform.hpp): C++ here, JavaScript in
// browser_glue.js (the `attnlabWeb` object), joined by EM_JS calls one way and two exported C
// functions the other (the picker's files, the page being hidden).
#include "web/web_platform.hpp"

#include "bench/compute_timing.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/io/scenario.hpp"
#include "gui/dialogs/file_dialog.hpp"

#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <emscripten.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <utility>

namespace attnlab::web {

namespace fs = std::filesystem;

namespace {

// Files the picker delivered, waiting for the next frame (JavaScript calls in between frames).
std::vector<PickedFile> g_picked;

// The recovery file's version last copied to local storage (after_frame).
std::uint64_t g_persisted_version = 0;
bool g_persisted_once = false;
bool g_announced = false;
// The last frame's heatmap layout (attnlab_web_layout).
std::string g_layout;
std::string g_timing;  // the last attnlab_web_compute_timing answer

// Saves the session (set by the frame loop, main_window.cpp): the page calls it when hidden.
std::function<void()> g_save_session;

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

constexpr std::string_view kBase64url = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

gui::GuiOptions options_from_url(const gui::GuiOptions& options, std::string& error) {
  gui::GuiOptions out = options;
  const std::string fragment = url_fragment();
  try {
    if (fragment.starts_with("preset=")) {
      out.preset = fragment.substr(7);
    } else if (fragment.starts_with("scenario=")) {
      const std::string json = base64url_decode(fragment.substr(9), "the link's #scenario=");
      const fs::path file = "/shared/scenario.json";
      std::error_code ec;
      fs::create_directories(file.parent_path(), ec);
      write_file_atomic(file, json);
      out.scenario = file.string();
    }
  } catch (const InputError& e) {
    error = e.what();
    return options;
  }
  return out;
}

void before_frame(gui::AppState& state) {
  for (const PickedFile& f : take_picked_files()) gui::use_chosen_file(state, f.purpose, f.path);
  if (!state.dropped_files.empty()) state.dropped_files = group_dropped_model(state.dropped_files);
}

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

void after_frame(gui::AppState& state, const gui::Services& services, size_t frames_drawn, std::string layout) {
  // The frame has seen every key pressed since the last one: pass on their releases now.
  g_keys_down_this_frame.clear();
  for (const KeyRelease& r : std::exchange(g_releases_after_frame, {})) {
    ImGui_ImplGlfw_KeyCallback(g_key_window, r.key, r.scancode, GLFW_RELEASE, r.mods);
  }
  g_layout = std::move(layout);
  if (!g_announced && frames_drawn > 0) {
    g_announced = true;
    announce_ready();
  }
  // The recovery file changed (recovery_store.cpp wrote it this frame): keep it in local storage,
  // so a tab that is killed still offers its work back on the next visit.
  if (!g_persisted_once || state.recovery.written_version != g_persisted_version) {
    g_persisted_once = true;
    g_persisted_version = state.recovery.written_version;
    persist_config_dir(services.config_dir);
  }
}

void pick_file(gui::FilePurpose purpose) {
  js_pick_file(static_cast<int>(purpose), accept_for(purpose), purpose == gui::FilePurpose::OpenModel ? 1 : 0);
}

std::vector<PickedFile> take_picked_files() {
  std::vector<PickedFile> out;
  out.swap(g_picked);
  return out;
}

std::vector<std::string> group_dropped_model(const std::vector<std::string>& paths) {
  const auto is_weights = [](const std::string& p) { return lower_extension(p) == ".safetensors"; };
  if (std::none_of(paths.begin(), paths.end(), is_weights)) return paths;
  const fs::path folder = fresh_folder("/uploads/models");
  std::vector<std::string> out;
  std::error_code ec;
  for (const std::string& p : paths) {
    const fs::path moved = folder / fs::path(p).filename();
    fs::rename(p, moved, ec);
    if (ec) fs::copy_file(p, moved, fs::copy_options::overwrite_existing, ec);
    if (is_weights(p)) out.push_back(moved.string());
  }
  return out;
}

fs::path download_dir() { return "/downloads"; }

void offer_download(const fs::path& path, const std::string& name) {
  js_download(path.c_str(), name.c_str(), mime_for(name));
}

void offer_folder_download(const fs::path& dir) {
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_regular_file(ec)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) offer_download(f, f.filename().string());
}

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

void persist_config_dir(const fs::path& dir) {
  if (dir.empty()) return;
  js_persist_files(dir.c_str(), "session.json\nrecovery.json\nimgui.ini");
}

std::string url_fragment() { return take_js_string(js_url_fragment()); }

std::string share_link(const Scenario& scenario) {
  return take_js_string(js_share_link(("scenario=" + base64url_encode(scenario_to_json(scenario))).c_str()));
}

std::string base64url_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(bytes[i]) << 16 | static_cast<unsigned char>(bytes[i + 1]) << 8 |
                       static_cast<unsigned char>(bytes[i + 2]);
    for (int k = 18; k >= 0; k -= 6) out += kBase64url[(v >> k) & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    out += kBase64url[(v >> 18) & 63];
    out += kBase64url[(v >> 12) & 63];
    if (rest == 2) out += kBase64url[(v >> 6) & 63];
  }
  return out;
}

std::string base64url_decode(const std::string& text, const std::string& where) {
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (const char c : text) {
    if (c == '=') break;  // padding, which some encoders add anyway
    const size_t d = kBase64url.find(c == '+' ? '-' : c == '/' ? '_' : c);
    if (d == std::string_view::npos) {
      throw InputError(where + ": '" + std::string(1, c) + "' is not a base64url character (A-Z, a-z, 0-9, - and _)");
    }
    v = (v << 6) | static_cast<unsigned>(d);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xFF);
    }
  }
  if (bits >= 6) throw InputError(where + ": the base64url text is cut short (one character too many or too few)");
  return out;
}

void announce_ready() { js_ready(); }

void set_session_saver(std::function<void()> save) { g_save_session = std::move(save); }

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

// The browser's side of bench/web_bench.mjs: the same timings as the native bench/compute_timing.
EMSCRIPTEN_KEEPALIVE const char* attnlab_web_compute_timing(int runs) {
  g_timing = bench::compute_timing_json(runs);
  return g_timing.c_str();
}

}  // extern "C"

}  // namespace attnlab::web
