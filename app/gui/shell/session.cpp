// The app's session saved and restored (session.hpp).
#include "gui/shell/session.hpp"

#include "gui/shell/apply_command.hpp"

#include <exception>
#include <utility>

namespace attnlab::gui {

void save_session(const AppState& state, const WindowGeometry& window, const std::filesystem::path& dir) {
  SessionData s;
  s.doc = state.doc;
  s.scenario_path = state.scenario_path;
  s.view = state.view;
  s.recent_files = state.recent_files;
  s.window = window;
  save_session(s, dir);
}

bool restore_session(AppState& state, WindowGeometry& window, const std::filesystem::path& dir) {
  try {
    std::optional<SessionData> s = read_session(dir);
    if (!s) return false;
    AppState next = state;
    reset_document(next, std::move(s->doc.scenario), s->scenario_path);
    next.doc.self_attention = s->doc.self_attention;
    next.view = std::move(s->view);
    next.recent_files = std::move(s->recent_files);
    state = std::move(next);
    window = s->window;
    return true;
  } catch (const std::exception& e) {
    // Not fatal: the app starts on the default lesson and says why (the file is rewritten on exit).
    state.error = std::string("the last session could not be restored: ") + e.what();
    return false;
  }
}

}  // namespace attnlab::gui
