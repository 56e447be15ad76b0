// What only the browser build has (docs/WEB.md): files through the browser's picker and downloads,
// the session kept in local storage, the page's URL (#preset=, #scenario=, "Share link"). The GUI
// calls these at its edges, behind `#ifdef __EMSCRIPTEN__`; browser_glue.js is their JavaScript side.
#pragma once

#include "engine/io/export.hpp"
#include "gui/shell/gui_command.hpp"
#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

struct GLFWwindow;

namespace attnlab::web {

// The window's options with the page's URL fragment applied: `#preset=NAME` opens that lesson,
// `#scenario=<base64url JSON>` that scenario (written to the in-memory file system and opened as a
// file would be). A fragment that cannot be read leaves the options as they are and says why in
// `error`.
gui::GuiOptions options_from_url(const gui::GuiOptions& options, std::string& error);

// Keys pressed and released between two frames: ImGui 1.86 sees a key only as down or up when a
// frame starts, so a quick tap during a slow frame (a model training in the page) would be lost.
// Installed after ImGui's GLFW callbacks; a release that arrives in the frame of its press is
// passed on after that frame (after_frame). Mouse buttons need nothing: ImGui latches them.
void install_key_latch(GLFWwindow* window);

// The frame's browser edges, around the desktop's frame: before it, files the picker delivered go
// where the desktop's file dialog would send them and a dropped model's files become one folder;
// after it, the first frame announces itself and changed settings files go to local storage.
void before_frame(gui::AppState& state);
// `layout` is where the frame drew each heatmap (the desktop's ATTNLAB_LAYOUT_OUT JSON), which the
// page's tests read through attnlab_web_layout().
void after_frame(gui::AppState& state, const gui::Services& services, size_t frames_drawn, std::string layout);

// Asks the browser for a file (its picker); the chosen file arrives later, on a frame, through
// take_picked_files. For OpenModel the picker takes several files (config.json, model.safetensors,
// vocab.json, merges.txt) and they arrive as one model folder.
void pick_file(gui::FilePurpose purpose);

struct PickedFile {
  std::string path;  // in the page's in-memory file system
  gui::FilePurpose purpose = gui::FilePurpose::None;
};
// The files the picker delivered since the last call, oldest first.
std::vector<PickedFile> take_picked_files();

// Files dropped onto the page together: a model's files become one folder (its .safetensors is
// what the GUI opens), everything else passes through unchanged.
std::vector<std::string> group_dropped_model(const std::vector<std::string>& paths);

// Offers a file of the in-memory file system as a download named `name`.
void offer_download(const std::filesystem::path& path, const std::string& name);

// Offers every file of a folder of the in-memory file system as a download, by its own name (a
// trained model's config.json, vocab.json and model.safetensors).
void offer_folder_download(const std::filesystem::path& dir);

// Exports a stage as a download named `name` (its extension picks the format, as on the desktop).
// PNG is drawn by the browser from the engine's SVG (`width_px`: 0 for two pixels per point); PDF
// needs the desktop app and says so. Throws InputError with the engine's sentence.
void download_export(const Scenario& scenario, const Result& result, const ExportOptions& options,
                     const std::string& name);

// Where files the user saves go before they are offered as downloads.
std::filesystem::path download_dir();

// The settings folder is restored from local storage before main() runs; this writes its files
// back (session.json, recovery.json, imgui.ini; a file no longer there is removed from storage).
void persist_config_dir(const std::filesystem::path& dir);

// The page's URL fragment without '#' ("preset=causal-six", "scenario=...").
std::string url_fragment();
// "Share link": the page's address with #scenario=<base64url of the scenario JSON>, put in the
// address bar and copied to the clipboard. Returns the link.
std::string share_link(const Scenario& scenario);

// base64url (RFC 4648 §5, no padding) of bytes, and back. decode throws InputError naming `where`.
std::string base64url_encode(const std::string& bytes);
std::string base64url_decode(const std::string& text, const std::string& where);

// What attnlab_web_save_session (called by the page when it is hidden or closed) runs.
void set_session_saver(std::function<void()> save);

// Records where each labelled ImGui item is drawn, every frame, for the browser tests
// (web/item_probe.cpp; the page reads it with attnlabWeb.items()). Call once ImGui's context exists.
void start_item_probe();

// Tells the page that the first frame is on screen: the console line tests and benchmarks wait for.
void announce_ready();

}  // namespace attnlab::web
