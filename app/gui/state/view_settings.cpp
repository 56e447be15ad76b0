// The floating windows' open flags (view_settings.hpp).
#include "gui/state/view_settings.hpp"

namespace attnlab::gui {

bool& window_open(ViewSettings& view, const char* name) { return view.open_windows[name]; }

bool window_shown(const ViewSettings& view, const char* name) {
  const auto it = view.open_windows.find(name);
  return it != view.open_windows.end() && it->second;
}

}  // namespace attnlab::gui
