// Session file: JSON with the scenario in its own file format, the view and the recent files.
// The text itself is read and written by session_file.cpp (shared with the fuzz target).
#include "gui/persistence/session_store.hpp"

#include "engine/io/atomic_file.hpp"

#include <cstdlib>

namespace attnlab::gui {

namespace fs = std::filesystem;

fs::path config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return fs::path(x) / "attnlab";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".config" / "attnlab";
  return {};
}

void save_session(const SessionData& session, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string() + ": cannot create the settings folder (" + ec.message() + ")");
  write_file_atomic(dir / "session.json", session_json(session));
}

std::optional<SessionData> read_session(const fs::path& dir) {
  const fs::path file = dir / "session.json";
  std::error_code ec;
  if (dir.empty() || !fs::exists(file, ec)) return std::nullopt;
  return parse_session(read_file(file), file.string());
}

}  // namespace attnlab::gui
