// Light/dark themes, presenter mode (large fonts, high contrast) and the fonts they use.
#pragma once

#include "gui/state/app_state.hpp"
#include "gui/state/services.hpp"

#include <imgui.h>

namespace attnlab::gui {

// Colours panels draw with, for the current theme.
struct Palette {
  ImU32 text, text_dim, accent, error, warning, good;
  ImU32 hatch_a, hatch_b;  // blocked cells: stripes of these two
  ImU32 selected, hovered, cell_border;
  ImU32 flagged_row_bg;  // saturated / fully-masked rows in tables
  ImU32 number;          // numbers in a lesson's text, filled from the current result
};
Palette palette(const AppState& state);

// Loads DejaVu Sans (from fonts-dejavu-core; $ATTNLAB_FONT overrides) at a normal and a presenter
// size with the symbols the formulas use, into the current ImGui context's atlas. Falls back to
// ImGui's default font and ASCII symbol names when the file is missing.
void load_fonts(Services& services);

// Rebuilds the ImGui style for state.view (theme, presenter) when state.style_dirty or when the
// window crosses the small-screen size (presenter mode's font depends on it).
void apply_style(AppState& state, Services& services);

// Whether a window of this size is a small screen for presenter mode: below 95% of 1280 × 720 in
// either direction (1024 × 768 is; 1280 × 800, 1366 × 768 and larger are not).
bool small_screen(ImVec2 display);

// The body font for the current mode (and, in presenter mode, screen size).
ImFont* body_font(const AppState& state, const Services& services);

}  // namespace attnlab::gui
