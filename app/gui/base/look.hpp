// What every drawing depends on: the theme and presenter mode. Plain data, no ImGui, so that the
// app's state (and the session file's reader, which is fuzzed without ImGui) can hold it.
#pragma once

namespace attnlab::gui {

enum class Theme { Dark, Light };

// The session's ViewSettings is one; base/theme.hpp turns it into colours, fonts and a style.
struct Look {
  bool presenter = false;
  Theme theme = Theme::Dark;
  friend bool operator==(const Look&, const Look&) = default;
};

}  // namespace attnlab::gui
