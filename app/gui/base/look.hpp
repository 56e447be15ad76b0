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

// What a projector's back row can read (DESIGN.md's layout contract; tools/legibility.py checks it):
// in presenter mode a map the text asks the room to read is at least kLegibleMapSide pixels on its
// short side (or has cells of kLegibleCell), and every text is at least kLegibleText pixels tall. A
// page whose maps would be smaller shows fewer at a time.
inline constexpr float kLegibleMapSide = 200.0f, kLegibleCell = 20.0f, kLegibleText = 18.0f;

}  // namespace attnlab::gui
