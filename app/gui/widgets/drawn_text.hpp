// The text a frame drew, read back from its draw lists: every run of glyphs on one line, with where
// it was drawn, how tall its font was and whether any of it was clipped. ImGui draws each glyph as a
// quad sampling the font atlas, so the atlas's glyph table turns the quads back into characters;
// this sees every label, number and title whoever drew it (a widget, a table, ImGui itself), which is
// what the presenter-mode legibility checks need (the layout record, docs/CLI.md).
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

namespace attnlab::gui {

struct DrawnText {
  std::string text;        // UTF-8; a gap wider than a quarter of the font size reads as a space
  ImVec2 min, max;         // its glyphs' bounding box, in ImGui's display coordinates
  float line_top = 0;      // where its line starts across the text (a level run's top: its glyphs
                           // and the line's own height, px, below it)
  float px = 0;            // the font size it was drawn at
  bool upright = false;    // turned a quarter turn (a heatmap's column labels), read bottom to top
  bool clipped = false;    // a glyph's ink (its texels at least a quarter covered) was cut by its clip rectangle
  const ImDrawList* list = nullptr;  // the draw list it was drawn into (which window, in which order)
};

// Every run of text in `data`, drawn with `atlas`'s fonts, in drawing order. Glyphs of one run share
// a draw command, a font size, a line and a direction. A run none of whose glyphs is inside its clip
// rectangle is not seen (the scissor drops it all), and is left out.
std::vector<DrawnText> drawn_texts(const ImDrawData& data, const ImFontAtlas& atlas);
// The same for some draw lists only (a window's and its child windows', while the frame is drawn).
std::vector<DrawnText> drawn_texts(const std::vector<const ImDrawList*>& lists, const ImFontAtlas& atlas);

}  // namespace attnlab::gui
