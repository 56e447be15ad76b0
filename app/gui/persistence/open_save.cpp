// File operations behind the File menu, the file dialog and drag-and-drop (open_save.hpp).
#include "gui/persistence/open_save.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/io/matrix_io.hpp"
#include "engine/io/scenario.hpp"
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

FileKind file_kind(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".json") return FileKind::Scenario;
  if (ext == ".npy" || ext == ".csv") return FileKind::Matrix;
  return FileKind::Other;
}

std::string unknown_file_refusal(const std::string& path) {
  return path + ": expected a scenario (.json), a matrix (.npy, .csv), or a model (a folder or its .safetensors)";
}

std::vector<std::string> with_recent_file(std::vector<std::string> recent, const std::string& path) {
  std::error_code ec;
  std::string abs = std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  recent.erase(std::remove(recent.begin(), recent.end(), abs), recent.end());
  recent.insert(recent.begin(), abs);
  if (recent.size() > kMaxRecentFiles) recent.resize(kMaxRecentFiles);
  return recent;
}

LoadScenario scenario_file_to_load(const std::string& path) {
  Scenario s = load_scenario(path);
  check_lesson_fields(s.lesson);  // every page's fields, as opening a file checks them (lesson_registry.hpp)
  return LoadScenario{std::move(s), path, "open " + file_name(path)};
}

std::string save_lesson_card_file(const std::string& lesson, const std::string& path) {
  ExportOptions o;
  o.force = true;
  o.target_name = "reference card";
  write_lesson_card(lesson, path, o);
  return "Saved the reference card " + path;
}

std::string save_scenario_file(const Document& doc, const std::string& path) {
  Scenario s = doc.scenario;
  if (s.title.empty()) s.title = std::filesystem::path(path).stem().string();
  // Saving over an existing scenario keeps the previous version as <file>.bak.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) write_file_atomic(path + ".bak", read_file(path));
  save_scenario(s, path);
  return "Saved " + path;
}

Edit matrix_file_edit(const Document& doc, Which which, const std::string& path) {
  return edits::load_matrix(doc, which, load_matrix(path), file_name(path));
}

}  // namespace attnlab::gui
