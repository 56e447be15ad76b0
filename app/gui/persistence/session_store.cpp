// Session file: JSON with the scenario in its own file format, the view and the recent files.
// The text itself is read and written by session_file.cpp (shared with the fuzz target).
#include "gui/persistence/session_store.hpp"

#include "engine/io/atomic_file.hpp"
#include "gui/shell/apply_command.hpp"

#include <cstdlib>

namespace attnlab::gui {

namespace fs = std::filesystem;

fs::path config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return fs::path(x) / "attnlab";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".config" / "attnlab";
  return {};
}

void save_session(const AppState& state, const WindowGeometry& window, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the settings folder (" + ec.message() + ")");
  SessionData s;
  s.doc = state.doc;
  s.scenario_path = state.scenario_path;
  s.view = state.view;
  s.recent_files = state.recent_files;
  s.window = window;
  write_file_atomic(dir / "session.json", session_json(s));
}

bool restore_session(AppState& state, WindowGeometry& window, const fs::path& dir) {
  const fs::path file = dir / "session.json";
  std::error_code ec;
  if (dir.empty() || !fs::exists(file, ec)) return false;
  try {
    SessionData s = parse_session(read_file(file), file.string());
    AppState next = state;
    reset_document(next, std::move(s.doc.scenario), s.scenario_path);
    next.doc.self_attention = s.doc.self_attention;
    next.view = std::move(s.view);
    next.recent_files = std::move(s.recent_files);
    next.style_dirty = true;
    state = std::move(next);
    window = s.window;
    return true;
  } catch (const std::exception& e) {
    // Not fatal: the app starts on the default lesson and says why (the file is rewritten on exit).
    state.error = std::string("the last session could not be restored: ") + e.what();
    return false;
  }
}

}  // namespace attnlab::gui
