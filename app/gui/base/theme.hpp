// The ground floor of the GUI: light/dark themes, presenter mode (large fonts, high contrast) and the
// fonts they use. Knows nothing of the app's state: callers pass the Look they draw with.
#pragma once

#include "engine/text/text_format.hpp"
#include "gui/base/look.hpp"

#include <imgui.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

// Colours panels draw with, for a look.
struct Palette {
  ImU32 text, text_dim, accent, error, warning, good;
  ImU32 hatch_a, hatch_b;  // blocked cells: stripes of these two
  ImU32 selected, hovered, cell_border;
  ImU32 flagged_row_bg;  // saturated / fully-masked rows in tables
  ImU32 number;          // numbers in a lesson's text, filled from the current result
};
Palette palette(const Look& look);

struct Fonts {
  ImFont* normal = nullptr;     // body text, normal mode
  ImFont* presenter = nullptr;  // body text, presenter mode (large)
  // Presenter mode on a screen below 1280 × 720 (an XGA projector's 1024 × 768): smaller in pixels
  // by the screen's ratio, so the same size on the wall, and the 1280 × 720 layouts fit.
  ImFont* presenter_small = nullptr;
  bool unicode = false;         // DejaVu Sans was found: the Glyphs are real symbols
  std::string font_path;
  // Characters past the start's that text asked for (want_glyphs), each added once: DejaVu's own
  // where it has them, else the fallback font's.
  std::set<ImWchar> added;
  // What the atlas asks of DejaVu (the start's characters and the added ones) and of the fallback
  // font (the added ones); they must outlive the atlas's build.
  ImVector<ImWchar> ranges, added_ranges;
  // A font with the CJK characters DejaVu lacks (fonts-droid-fallback; $ATTNLAB_FALLBACK_FONT
  // overrides), read when a character first needs it; empty where there is none.
  std::string fallback_path;
  std::vector<char> fallback_data;
};

// Loads DejaVu Sans (from fonts-dejavu-core; $ATTNLAB_FONT overrides) at a normal and a presenter
// size with the symbols the formulas use and the alphabets of Europe, into the current ImGui
// context's atlas, and sets `glyphs` to the symbols it can draw. Falls back to ImGui's default
// font and ASCII symbol names when the file is missing.
void load_fonts(Fonts& fonts, Glyphs& glyphs);

// Asks for the characters of UTF-8 `text` that the fonts do not have yet (a model's text in
// Chinese, a token in Hebrew): the next update_fonts adds them. Cheap where the atlas has them all,
// so what shows a user's or a model's text calls it as it draws.
void want_glyphs(std::string_view text);
// Text from outside the app as it is drawn: in reading order with Arabic joined (visual_order,
// engine/text/bidi.hpp), its characters asked of the font. Every read-only user or model text goes
// through it where it is drawn.
std::string drawn_text(std::string_view text);

// Between frames: adds the characters asked for since the last call, and those just typed into any
// field (ImGui's input queue), to the atlas (rebuilt, and the body fonts and ImGui's default font
// pointed at the rebuilt ones). Returns whether it rebuilt the atlas: the renderer must then upload
// its texture again. A character no font has is asked for once; past 4000 added characters, none
// is added (they stay '?').
bool update_fonts(Fonts& fonts, Glyphs& glyphs);

// Whether a window of this size is a small screen for presenter mode: below 95% of 1280 × 720 in
// either direction (1024 × 768 is; 1280 × 800, 1366 × 768 and larger are not).
bool small_screen(ImVec2 display);

// The body font for a look (and, in presenter mode, the screen size).
ImFont* body_font(const Look& look, bool small, const Fonts& fonts);

// Makes the ImGui style and default font those of `look` on a screen that is `small` or not.
void set_style(const Look& look, bool small, const Fonts& fonts);

// The smallest text the style set_style made last may draw: in presenter mode the layout contract's
// kLegibleText (base/look.hpp), else 0. What would be smaller (a cell's number, a map's labels) is
// left out and read on hover instead.
float smallest_text();

}  // namespace attnlab::gui
