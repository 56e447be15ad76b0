// Session file: JSON with the scenario in its own file format, the view and the recent files.
#include "gui/session.hpp"

#include "engine/atomic_file.hpp"
#include "gui/actions.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace attnlab::gui {

namespace fs = std::filesystem;
using nlohmann::json;

fs::path config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return fs::path(x) / "attnlab";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".config" / "attnlab";
  return {};
}

void save_session(const AppState& state, const WindowGeometry& window, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the settings folder (" + ec.message() + ")");
  json j;
  j["format"] = "attnlab-session";
  j["version"] = 1;
  j["scenario"] = json::parse(scenario_to_json(state.doc.scenario));
  j["scenario_path"] = state.scenario_path;
  j["self_attention"] = state.doc.self_attention;
  const ViewSettings& v = state.view;
  j["view"] = {{"presenter", v.presenter},
               {"theme", v.theme == Theme::Dark ? "dark" : "light"},
               {"sequential", v.sequential},
               {"diverging", v.diverging},
               {"numbers_in_cells", v.numbers_in_cells},
               {"left_width", v.left_width},
               {"bottom_height", v.bottom_height},
               {"open_windows", v.open_windows}};
  j["recent_files"] = state.recent_files;
  j["window"] = {window.width, window.height};
  write_file_atomic(dir / "session.json", j.dump(1));
}

bool restore_session(AppState& state, WindowGeometry& window, const fs::path& dir) {
  const fs::path file = dir / "session.json";
  std::error_code ec;
  if (dir.empty() || !fs::exists(file, ec)) return false;
  try {
    const json j = json::parse(read_file(file));
    if (j.value("format", "") != "attnlab-session") return false;
    Scenario s = parse_scenario(j.at("scenario").dump(), file.string());
    AppState next = state;
    reset_document(next, std::move(s), j.value("scenario_path", ""));
    next.doc.self_attention = j.value("self_attention", next.doc.self_attention) &&
                              next.doc.scenario.Q.rows() == next.doc.scenario.K.rows();
    if (j.contains("view")) {
      const json& v = j.at("view");
      ViewSettings& vs = next.view;
      vs.presenter = v.value("presenter", vs.presenter);
      vs.theme = v.value("theme", "dark") == "light" ? Theme::Light : Theme::Dark;
      vs.sequential = v.value("sequential", vs.sequential);
      vs.diverging = v.value("diverging", vs.diverging);
      vs.numbers_in_cells = v.value("numbers_in_cells", vs.numbers_in_cells);
      vs.left_width = v.value("left_width", 0.0f);
      vs.bottom_height = v.value("bottom_height", 0.0f);
      if (v.contains("open_windows")) vs.open_windows = v.at("open_windows").get<std::map<std::string, bool>>();
    }
    if (j.contains("recent_files")) next.recent_files = j.at("recent_files").get<std::vector<std::string>>();
    if (j.contains("window") && j.at("window").is_array() && j.at("window").size() == 2) {
      window.width = std::clamp(j.at("window")[0].get<int>(), 320, 16384);
      window.height = std::clamp(j.at("window")[1].get<int>(), 240, 16384);
    }
    next.style_dirty = true;
    state = std::move(next);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace attnlab::gui
