// The pure text layout rules behind every panel: wrapping never splits a number or a word, and
// heatmap cell numbers grow with their cells up to the font size and never overflow them.
#include "gui/widgets/text_layout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace attnlab::gui {
namespace {

// A monospace measure: every byte is 10 px wide (UTF-8 continuation bytes are free).
float mono(std::string_view s) {
  float w = 0;
  for (const char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) w += 10;
  return w;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "|";
  return out;
}

TEST(WrapWords, NeverBreaksInsideANumber) {
  // ImGui's own wrapping breaks after '.', giving "÷ 1." / "414" (the projector bug).
  const std::string formula = "÷ (√2 · 1) = ÷ 1.414, causal mask → −∞";
  for (float width = 20; width <= 400; width += 10) {
    SCOPED_TRACE(width);
    const auto lines = wrap_words(formula, width, mono);
    for (const auto& l : lines) {
      EXPECT_NE(l.back(), '.') << joined(lines);
      EXPECT_NE(l.front(), '4') << joined(lines);
    }
    bool whole = false;
    for (const auto& l : lines) whole |= l.find("1.414,") != std::string::npos;
    EXPECT_TRUE(whole) << joined(lines);
  }
}

// Panels join what must stay on one line with U+00A0 ("τ → ∞", "12.6 GB"): it is not a break.
TEST(WrapWords, NeverBreaksAtANoBreakSpace) {
  const std::string text = "every weight goes to 1/5 when \u03c4\u00a0\u2192\u00a0\u221e and 11.8\u00a0GiB (12.6\u00a0GB)";
  for (float width = 20; width <= 500; width += 10) {
    SCOPED_TRACE(width);
    const auto lines = wrap_words(text, width, mono);
    bool tau = false, gib = false, gb = false;
    for (const auto& l : lines) {
      tau |= l.find("\u03c4\u00a0\u2192\u00a0\u221e") != std::string::npos;
      gib |= l.find("11.8\u00a0GiB") != std::string::npos;
      gb |= l.find("(12.6\u00a0GB)") != std::string::npos;
    }
    EXPECT_TRUE(tau && gib && gb) << joined(lines);
  }
}

TEST(WrapWords, LinesFitAndKeepEveryWordInOrder) {
  std::mt19937 rng(7);
  const std::vector<std::string> words = {"0.448", "row", "sums", "to", "1.000", "e^0.707", "(0.401,", "0.198)", "x"};
  for (int trial = 0; trial < 200; ++trial) {
    std::string text;
    const int count = 1 + static_cast<int>(rng() % 30);
    for (int k = 0; k < count; ++k) text += (k ? " " : "") + words[rng() % words.size()];
    const float width = 30.0f + static_cast<float>(rng() % 300);
    const auto lines = wrap_words(text, width, mono);
    std::string rebuilt;
    for (const auto& l : lines) {
      // A line is over-wide only when it is one word that cannot be split.
      if (mono(l) > width) {
        EXPECT_EQ(l.find(' '), std::string::npos) << l;
      }
      rebuilt += (rebuilt.empty() ? "" : " ") + l;
    }
    EXPECT_EQ(rebuilt, text);
  }
}

TEST(WrapWords, KeepsExplicitLineBreaksAndIndentation) {
  EXPECT_EQ(joined(wrap_words("a b\n  c", 1000, mono)), "a b|  c|");
  EXPECT_EQ(joined(wrap_words("", 100, mono)), "|");
  EXPECT_EQ(joined(wrap_words("aaaa bbbb", 50, mono)), "aaaa|bbbb|");
  EXPECT_EQ(joined(wrap_words("aaaaaaaa", 30, mono)), "aaaaaaaa|");  // whole, on its own line
}

// A path wider than the line (the export dialog's "…/weights.png exists. Replace it?" in a
// narrow column) breaks after its '/'s, a part too wide for a line by characters: every line fits
// and the lines put together give the path back. A fraction such as 1/5 is never that wide.
TEST(WrapWords, BreaksAPathWiderThanTheLineAfterItsSlashes) {
  EXPECT_EQ(joined(wrap_words("/tmp/ci/build/weights.png exists.", 100, mono)), "/tmp/ci/|build/weig|hts.png|exists.|");
  EXPECT_EQ(joined(wrap_words("see 1/5 now", 30, mono)), "see|1/5|now|");
  std::mt19937 rng(11);
  const std::vector<std::string> parts = {"tmp", "cci4", "build-asan", "tests", "gui", "é", "models--HuggingFaceTB--SmolLM2-135M"};
  for (int trial = 0; trial < 300; ++trial) {
    std::string path;
    const int count = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < count; ++k) path += "/" + parts[rng() % parts.size()];
    const float width = 10.0f * static_cast<float>(5 + rng() % 26);  // "saved" fits
    const auto lines = wrap_words("saved " + path + " here", width, mono);
    std::string rebuilt;
    for (const auto& l : lines) {
      EXPECT_LE(mono(l), width) << joined(lines);
      rebuilt += l;
    }
    EXPECT_NE(rebuilt.find(path), std::string::npos) << joined(lines);
  }
}

// "0.401" is 5 characters, "0.40" is 4; 0.6 px per character per pixel of font size.
float widest(int decimals) { return 0.6f * static_cast<float>(2 + decimals); }

TEST(Shortened, CutsWholeCharactersAtEitherEndWithTheMark) {
  // One unit per byte: "é" is two bytes and must never be split.
  const auto bytes = [](std::string_view s) { return static_cast<float>(s.size()); };
  EXPECT_EQ(shortened("attention", 9, bytes), "attention");
  EXPECT_EQ(shortened("attention", 4, bytes), "atte");
  EXPECT_EQ(shortened("attention", 6, bytes, false, ".."), "atte..");
  EXPECT_EQ(shortened("/home/lesson.json", 12, bytes, true, ".."), "..esson.json");
  EXPECT_EQ(shortened("café", 4, bytes), "caf");
  EXPECT_EQ(shortened("écrit", 4, bytes, true), "crit");
  EXPECT_EQ(shortened("attention", 1, bytes, false, ".."), "..");
}

TEST(FitCellText, GrowsWithTheCellUpToTheFontSize) {
  CellText last{2, 0.0f};
  for (float cell = 10; cell <= 400; cell += 5) {
    const CellText t = fit_cell_text(cell, 28, 22, 14, widest);
    // Never shrinks as the cell grows, except where a third decimal comes in.
    EXPECT_GE(t.decimals, last.decimals) << cell;
    if (t.decimals == last.decimals) {
      EXPECT_GE(t.size, last.size) << cell;
    }
    EXPECT_LE(t.size, 28.0f);
    if (t.size > 0) {
      // Fits with a margin, and is not taller than half the cell.
      EXPECT_LE(t.size * widest(t.decimals), cell - 4.0f) << cell;
      EXPECT_LE(t.size, cell * 0.5f + 1e-4f) << cell;
      EXPECT_GE(t.size, 14.0f) << cell;
    }
    last = t;
  }
  EXPECT_EQ(fit_cell_text(400, 28, 22, 14, widest).size, 28.0f);  // big cells: the full presenter size
  EXPECT_EQ(fit_cell_text(400, 28, 22, 14, widest).decimals, 3);
}

TEST(FitCellText, DropsADecimalBeforeGoingBelowTheReadableSize) {
  // A cell where three decimals would need a small font: two decimals at a larger one.
  const CellText mid = fit_cell_text(60, 28, 22, 14, widest);
  EXPECT_EQ(mid.decimals, 2);
  EXPECT_GE(mid.size, 14.0f);
  // Too small for anything readable: no numbers (the hover read-out remains).
  EXPECT_EQ(fit_cell_text(20, 28, 22, 14, widest).size, 0.0f);
}

// Presenter mode on a small screen: the legible minimum (18 px) above the preferred size of three
// decimals (0.8 of a 22 px font). No cell gets numbers below the minimum, with any decimals.
TEST(FitCellText, NeverBelowTheMinimumThoughThePreferredSizeIs) {
  for (float cell = 10; cell <= 400; cell += 1) {
    const CellText t = fit_cell_text(cell, 22, 17.6f, 18, widest);
    if (t.size > 0) {
      EXPECT_GE(t.size, 18.0f) << cell << " px, " << t.decimals << " decimals";
    }
  }
}

// The pipeline plans its cells with cell_px_for_text: a cell that size must get numbers of at least
// that size from fit_cell_text, and a cell much smaller must not (the planning is not wasteful).
TEST(FitCellText, CellPxForTextIsTheSmallestCellThatShowsNumbers) {
  for (float size : {11.0f, 14.0f, 20.0f}) {
    for (float w : {1.5f, 2.2f, 2.6f, 3.4f}) {
      const float cell = std::ceil(cell_px_for_text(size, w));
      const CellText t = fit_cell_text(cell, 28, 22, size, [&](int) { return w; });
      EXPECT_GE(t.size, size) << size << " " << w;
      EXPECT_EQ(fit_cell_text(cell * 0.9f - 1.0f, 28, 22, size, [&](int) { return w; }).size, 0.0f) << size << " " << w;
    }
  }
}

}  // namespace
}  // namespace attnlab::gui

namespace attnlab::gui {
namespace {

TEST(PlaceLabels, LabelsOnTheSamePointDoNotOverlap) {
  // Section 2.3's geometry: Q = K, so a query tip and a key tip coincide, and labels pile up.
  const std::vector<std::pair<float, float>> anchors = {{100, 100}, {100, 100}, {100, 100}, {160, 100}, {160, 100}};
  const std::vector<LabelBox> sizes(anchors.size(), LabelBox{0, 0, 60, 20});
  const LabelBox bounds{0, 0, 400, 400};
  const auto boxes = place_labels(anchors, sizes, 6, bounds);
  ASSERT_EQ(boxes.size(), anchors.size());
  for (size_t a = 0; a < boxes.size(); ++a) {
    EXPECT_GE(boxes[a].x, bounds.x);
    EXPECT_LE(boxes[a].x + boxes[a].w, bounds.x + bounds.w);
    for (size_t b = a + 1; b < boxes.size(); ++b) {
      const bool apart = boxes[a].x + boxes[a].w <= boxes[b].x || boxes[b].x + boxes[b].w <= boxes[a].x ||
                         boxes[a].y + boxes[a].h <= boxes[b].y || boxes[b].y + boxes[b].h <= boxes[a].y;
      EXPECT_TRUE(apart) << a << " and " << b;
    }
  }
}

TEST(PlaceLabels, StaysInsideTheBoundsNearAnEdge) {
  const auto boxes = place_labels({{395, 5}}, {LabelBox{0, 0, 60, 20}}, 6, LabelBox{0, 0, 400, 400});
  ASSERT_EQ(boxes.size(), 1u);
  EXPECT_LE(boxes[0].x + boxes[0].w, 400.0f);
  EXPECT_GE(boxes[0].y, 0.0f);
}

// A colour bar's range as a plain formatter writes it.
std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

TEST(ColorbarLabels, DropDecimalsOnlyWhileTheEndsStillReadAsTheRange) {
  struct Case {
    double lo, hi;
    bool diverging;
    float width;
    const char *left, *right;
    bool zero;
    float scale;
  };
  const Case cases[] = {
      {-1.4142, 1.4142, true, 400, "-1.41", "1.41", true, 1},  // room for everything
      {-1.4142, 1.4142, true, 92, "-1.4", "1.4", true, 1},     // "-1.4 0 1.4": 8 characters, two gaps of 6
      // Narrower: ±1.41 never becomes ±1 (29% off); the 0 goes first, then the text shrinks.
      {-1.4142, 1.4142, true, 80, "-1.4", "1.4", false, 1},
      {-1.4142, 1.4142, true, 50, "-1.4", "1.4", false, 50.0f / 76.0f},
      {-6.02, 6.02, true, 60, "-6", "6", true, 1},  // 0.3% off
      {0, 0.4, false, 10, "0.0", "0.4", false, 0.6f},  // 0.4 never 0; text as small as it goes may run past
  };
  for (const Case& k : cases) {
    SCOPED_TRACE(std::to_string(k.hi) + " in " + std::to_string(k.width) + " px");
    const ColorbarLabels c = colorbar_labels(k.lo, k.hi, k.diverging, k.width, 6, fixed, mono);
    EXPECT_EQ(c.left, k.left);
    EXPECT_EQ(c.right, k.right);
    EXPECT_EQ(c.zero, k.zero);
    EXPECT_NEAR(c.scale, k.scale, 1e-6f);
  }
}

TEST(ColorbarLabels, RandomRangesFitTheBarAndReadAsTheirValues) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> exponent(-3, 6), unit(-1, 1);
  std::uniform_real_distribution<float> width(10, 400);
  for (int trial = 0; trial < 2000; ++trial) {
    const double a = unit(rng) * std::pow(10.0, exponent(rng)), b = unit(rng) * std::pow(10.0, exponent(rng));
    const double lo = std::min(a, b), hi = std::max(a, b);
    const bool diverging = trial % 2 == 0;
    const float w = width(rng), gap = 6;
    const ColorbarLabels c = colorbar_labels(lo, hi, diverging, w, gap, fixed, mono);
    SCOPED_TRACE("trial " + std::to_string(trial) + ": [" + std::to_string(lo) + ", " + std::to_string(hi) + "] in " +
                 std::to_string(w) + " px: '" + c.left + "' '" + c.right + "'");
    const double r = diverging ? std::max(std::abs(lo), std::abs(hi)) : hi, l = diverging ? -r : lo;
    // Both ends have the same decimals; with fewer than two, each reads as its value within 5%.
    const size_t dot = c.right.find('.');
    const int decimals = dot == std::string::npos ? 0 : static_cast<int>(c.right.size() - dot - 1);
    EXPECT_EQ(c.left, fixed(l, decimals));
    EXPECT_EQ(c.right, fixed(r, decimals));
    if (decimals < 2) {
      EXPECT_LE(std::abs(std::strtod(c.left.c_str(), nullptr) - l), 0.05 * std::abs(l));
      EXPECT_LE(std::abs(std::strtod(c.right.c_str(), nullptr) - r), 0.05 * std::abs(r));
    }
    // The 0 only on a diverging bar, and the text shrunk only once the 0 is gone.
    EXPECT_TRUE(!c.zero || diverging);
    EXPECT_TRUE(c.scale == 1 || !c.zero);
    EXPECT_GE(c.scale, 0.6f);
    // What is drawn fits the bar, unless the text is already as small as it goes.
    const float need = mono(c.left) + mono(c.right) + (c.zero ? 2 * gap + mono("0") : gap);
    if (c.scale > 0.6f) {
      EXPECT_LE(need * c.scale, w * 1.0001f);
    }
    // Nothing was given up that fitted: a diverging bar without its 0 could not fit it at these decimals.
    if (diverging && !c.zero) {
      EXPECT_GT(need + gap + mono("0"), w);
    }
    if (decimals < 2 && c.scale == 1) {
      const std::string more_l = fixed(l, decimals + 1), more_r = fixed(r, decimals + 1);
      EXPECT_GT(mono(more_l) + mono(more_r) + (c.zero ? 2 * gap + mono("0") : gap), w);
    }
  }
}

}  // namespace
}  // namespace attnlab::gui
