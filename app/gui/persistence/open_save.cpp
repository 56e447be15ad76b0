// File operations behind the File menu, the file dialog and drag-and-drop.
#include "gui/persistence/open_save.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/io/matrix_io.hpp"
#include "gui/model_window/model_actions.hpp"
#include "gui/shell/apply_command.hpp"
#include "engine/lessons/lesson_card.hpp"
#include "engine/lessons/lesson_registry.hpp"

#include <algorithm>
#include <filesystem>

namespace attnlab::gui {

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

}  // namespace

void add_recent_file(AppState& state, const std::string& path) {
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  auto& r = state.recent_files;
  r.erase(std::remove(r.begin(), r.end(), abs), r.end());
  r.insert(r.begin(), abs);
  if (r.size() > kMaxRecentFiles) r.resize(kMaxRecentFiles);
}

void open_scenario_file(AppState& state, const std::string& path) {
  try {
    const Scenario s = load_scenario(path);
    check_lesson_fields(s.lesson);
    actions::load_scenario(state, s, path, "open " + file_name(path));
    if (state.scenario_path == path) {
      add_recent_file(state, path);
      state.notice = "Opened " + path;
    }
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

void save_lesson_card_file(AppState& state, const std::string& lesson, const std::string& path) {
  try {
    ExportOptions o;
    o.force = true;
    o.target_name = "reference card";
    write_lesson_card(lesson, path, o);
    state.error.clear();
    state.notice = "Saved the reference card " + path;
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

void save_scenario_file(AppState& state, const std::string& path) {
  try {
    Scenario s = state.doc.scenario;
    if (s.title.empty()) s.title = std::filesystem::path(path).stem().string();
    // Saving over an existing scenario keeps the previous version as <file>.bak.
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) write_file_atomic(path + ".bak", read_file(path));
    save_scenario(s, path);
    state.scenario_path = path;
    add_recent_file(state, path);
    state.error.clear();
    state.notice = "Saved " + path;
    state.deliveries.push_back({DeliveryKind::Scenario, path});
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

void open_matrix_file(AppState& state, Which which, const std::string& path) {
  try {
    const Matrix M = load_matrix(path);
    actions::load_matrix(state, which, M, file_name(path));
    if (state.error.empty()) add_recent_file(state, path);
  } catch (const InputError& e) {
    state.error = e.what();
  }
}

void open_dropped_file(AppState& state, const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".json") {
    open_scenario_file(state, path);
  } else if (ext == ".npy" || ext == ".csv") {
    state.inputs.drop_path = path;
  } else if (is_model_path(path)) {
    apply(state, open_model_file(state.model, path, state.platform.threads));
  } else {
    state.error = path + ": expected a scenario (.json), a matrix (.npy, .csv), or a model (a folder or its .safetensors)";
  }
}

}  // namespace attnlab::gui
