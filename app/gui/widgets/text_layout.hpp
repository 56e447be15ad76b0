// Text layout rules every panel shares, kept free of ImGui so they can be unit-tested: wrapping
// that never breaks a number or a word, and heatmap cell numbers sized to their cells.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::gui {

// Splits `text` into lines no wider than `max_width` (as measured by `width_of`), breaking only at
// spaces and at '\n'. ImGui's own wrapping also breaks after '.' and ',', which splits "1.414" into
// "1." and "414"; here a word wider than the line stays whole on a line of its own, but for a path
// (a word with a '/'), which starts a line and is broken after its '/'s, a part still too wide by
// characters. Spaces at a break are dropped; the lines keep the text's other characters in order.
std::vector<std::string> wrap_words(std::string_view text, float max_width,
                                    const std::function<float(std::string_view)>& width_of);

// `text` cut to `max_width` (as measured by `width_of`) by whole UTF-8 characters, with `mark` (an
// ellipsis, or nothing) where it was cut: at the end, or at the start when `keep_end` (a file path,
// whose end names the file). Unchanged when it fits; just `mark` when not even one character does.
std::string shortened(std::string_view text, float max_width, const std::function<float(std::string_view)>& width_of,
                      bool keep_end = false, std::string_view mark = {});

// How the numbers inside one heatmap's cells are drawn: one size and one precision for every cell,
// so that a row reads evenly. size 0 means "do not print numbers" (the hover read-out remains).
struct CellText {
  int decimals = 3;
  float size = 0;
};

// The largest font size (≤ max_size) at which the widest number of the heatmap fits in a square
// cell of `cell_px` pixels, with a margin, and stands no taller than about half the cell.
// `widest_at_unit(decimals)` is the width in pixels of the widest formatted number at font size 1.
// Three decimals (the course texts' precision) are kept while they can be drawn at `preferred_size` (and
// `min_size`) or larger; otherwise two decimals if those reach `min_size`; otherwise nothing.
CellText fit_cell_text(float cell_px, float max_size, float preferred_size, float min_size,
                       const std::function<float(int decimals)>& widest_at_unit);

// The smallest square cell (pixels) in which fit_cell_text writes two decimals at `size` or larger,
// for the widest number `widest_at_unit` wide at font size 1 (when max_size ≥ size).
float cell_px_for_text(float size, float widest_at_unit);

// A label's box: top-left corner and size, in pixels.
struct LabelBox {
  float x = 0, y = 0, w = 0, h = 0;
};

// Places labels beside their anchor points (arrow tips, dots) so that they do not overlap one
// another: each label, in order, takes the first of a ring of positions around its anchor (right,
// left, above, below, then farther out) that overlaps no earlier label and stays inside `bounds`;
// when none is free, the one with the least overlap. `sizes[k]` is label k's width and height
// (x and y ignored); returns the boxes, one per anchor.
std::vector<LabelBox> place_labels(const std::vector<std::pair<float, float>>& anchors, const std::vector<LabelBox>& sizes,
                                   float gap, const LabelBox& bounds);

// The range written under a colour bar: its ends, 0 in the middle of a diverging bar, and the
// text's size as a fraction of the font's.
struct ColorbarLabels {
  std::string left, right;
  bool zero = false;
  float scale = 1;
};

// Labels for a bar from `lo` to `hi` (a diverging bar: ±max(|lo|, |hi|)) that is `width` wide, the
// labels at least `gap` apart. They must not overlap or run past the bar, so it drops decimals
// first (from 2), while each end still reads as its value within 5% (1.41 may become 1.4, never
// 1; 0.4 never 0), then the middle 0, then shrinks the text, to no less than 0.6 of the font.
// `format(v, decimals)` writes a number; `width_of` measures text at the font's size.
ColorbarLabels colorbar_labels(double lo, double hi, bool diverging, float width, float gap,
                               const std::function<std::string(double, int)>& format,
                               const std::function<float(std::string_view)>& width_of);

}  // namespace attnlab::gui
