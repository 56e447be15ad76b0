// Colormaps: the tables are the published maps, complete, ordered by lightness as designed, and
// values map to positions as documented (diverging maps centred at 0).
#include "engine/figures/colormap.hpp"
#include "engine/attention/matrix.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace attnlab {
namespace {

Rgb hex(unsigned v) { return Rgb{std::uint8_t(v >> 16), std::uint8_t(v >> 8), std::uint8_t(v)}; }

// Relative luminance (sRGB → linear, Rec. 709 weights): what "lightness rises" means here.
double luminance(Rgb c) {
  auto lin = [](std::uint8_t u) {
    const double x = u / 255.0;
    return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

TEST(Colormap, ListsEveryMapOnceSequentialFirst) {
  const auto& maps = colormaps();
  std::set<std::string> names;
  bool seen_diverging = false;
  for (const auto& m : maps) {
    EXPECT_TRUE(names.insert(m.name).second) << m.name;
    if (m.kind == ColormapKind::Diverging) seen_diverging = true;
    else EXPECT_FALSE(seen_diverging) << m.name << " is sequential but listed after a diverging map";
  }
  for (const char* n : {"viridis", "magma", "inferno", "plasma", "cividis", "grays", "blue-white-red", "purple-white-orange"}) {
    EXPECT_EQ(names.count(n), 1u) << n;
  }
  EXPECT_EQ(colormap(kDefaultSequential).kind, ColormapKind::Sequential);
  EXPECT_EQ(colormap(kDefaultDiverging).kind, ColormapKind::Diverging);
  EXPECT_TRUE(colormap("cividis").colorblind_safe);
}

// End points as published by the maps' authors (matplotlib docs, the cividis paper).
TEST(Colormap, EndPointsMatchThePublishedMaps) {
  struct Ends { const char* name; unsigned lo, hi; };
  for (const Ends& e : {Ends{"viridis", 0x440154, 0xfde725}, Ends{"magma", 0x000004, 0xfcfdbf},
                        Ends{"inferno", 0x000004, 0xfcffa4}, Ends{"plasma", 0x0d0887, 0xf0f921},
                        Ends{"cividis", 0x00224e, 0xfee838}, Ends{"grays", 0xffffff, 0x000000},
                        Ends{"blue-white-red", 0x053061, 0x67001f}}) {
    const Colormap& m = colormap(e.name);
    EXPECT_EQ(m.table.front(), hex(e.lo)) << e.name;
    EXPECT_EQ(m.table.back(), hex(e.hi)) << e.name;
    EXPECT_EQ(m.at(0.0), hex(e.lo)) << e.name;
    EXPECT_EQ(m.at(1.0), hex(e.hi)) << e.name;
  }
  EXPECT_EQ(colormap("viridis").table[128], hex(0x21918c));
}

TEST(Colormap, SequentialMapsChangeLightnessMonotonically) {
  for (const char* name : {"viridis", "magma", "inferno", "plasma", "cividis"}) {
    const Colormap& m = colormap(name);
    for (size_t i = 1; i < m.table.size(); ++i) {
      // One byte of rounding may wobble luminance by a hair; the maps themselves never fall.
      EXPECT_GE(luminance(m.table[i]) + 2e-3, luminance(m.table[i - 1])) << name << " at " << i;
    }
    EXPECT_GT(luminance(m.table.back()) - luminance(m.table.front()), 0.5) << name;
  }
  const Colormap& g = colormap("grays");
  for (size_t i = 0; i < 256; ++i) {
    const auto v = std::uint8_t(255 - i);
    EXPECT_EQ(g.table[i], (Rgb{v, v, v}));
  }
}

TEST(Colormap, DivergingMapsAreLightInTheMiddleAndDarkAtBothEnds) {
  for (const auto& m : colormaps()) {
    if (m.kind != ColormapKind::Diverging) continue;
    const Rgb mid = m.at(0.5);
    EXPECT_GE(std::min({mid.r, mid.g, mid.b}), 240) << m.name << ": the centre should be near white";
    EXPECT_LT(luminance(m.table.front()), 0.1) << m.name;
    EXPECT_LT(luminance(m.table.back()), 0.1) << m.name;
    // Lightness rises to the centre, then falls.
    for (size_t i = 1; i < 128; ++i) EXPECT_GE(luminance(m.table[i]) + 2e-3, luminance(m.table[i - 1])) << m.name << " " << i;
    for (size_t i = 129; i < 256; ++i) EXPECT_LE(luminance(m.table[i]), luminance(m.table[i - 1]) + 2e-3) << m.name << " " << i;
  }
  const Colormap& bwr = colormap("blue-white-red");
  EXPECT_GT(bwr.table.front().b, bwr.table.front().r);
  EXPECT_GT(bwr.table.back().r, bwr.table.back().b);
}

TEST(Colormap, AtPicksTheNearestEntryAndClamps) {
  const Colormap& m = colormap("viridis");
  for (int i = 0; i < 256; ++i) EXPECT_EQ(m.at(i / 255.0), m.table[size_t(i)]) << i;
  EXPECT_EQ(m.at(10.4 / 255.0), m.table[10]);
  EXPECT_EQ(m.at(10.6 / 255.0), m.table[11]);
  EXPECT_EQ(m.at(-3.0), m.table.front());
  EXPECT_EQ(m.at(7.0), m.table.back());
  EXPECT_EQ(m.at(std::nan("")), m.table.front());
}

TEST(Colormap, UnknownNameIsAnInputErrorListingTheNames) {
  try {
    colormap("jet");
    FAIL() << "no error";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("jet"), std::string::npos) << what;
    EXPECT_NE(what.find("viridis"), std::string::npos) << what;
    EXPECT_NE(what.find("blue-white-red"), std::string::npos) << what;
  }
}

TEST(Colormap, PositionIsLinearForSequentialMaps) {
  const Colormap& m = colormap("viridis");
  EXPECT_DOUBLE_EQ(colormap_position(m, 2.0, 2.0, 6.0), 0.0);
  EXPECT_DOUBLE_EQ(colormap_position(m, 3.0, 2.0, 6.0), 0.25);
  EXPECT_DOUBLE_EQ(colormap_position(m, 6.0, 2.0, 6.0), 1.0);
  EXPECT_DOUBLE_EQ(colormap_position(m, 9.0, 2.0, 6.0), 1.0);   // outside a fixed --range: clamped
  EXPECT_DOUBLE_EQ(colormap_position(m, -9.0, 2.0, 6.0), 0.0);
  EXPECT_DOUBLE_EQ(colormap_position(m, 1.0, 1.0, 1.0), 0.5);   // constant matrix
  EXPECT_TRUE(std::isnan(colormap_position(m, -INFINITY, 0.0, 1.0)));  // blocked logit
  EXPECT_TRUE(std::isnan(colormap_position(m, std::nan(""), 0.0, 1.0)));
}

TEST(Colormap, PositionOfDivergingMapsIsCentredAtZero) {
  const Colormap& m = colormap("blue-white-red");
  EXPECT_DOUBLE_EQ(colormap_position(m, 0.0, -1.0, 4.0), 0.5);
  EXPECT_DOUBLE_EQ(colormap_position(m, 4.0, -1.0, 4.0), 1.0);
  EXPECT_DOUBLE_EQ(colormap_position(m, -1.0, -1.0, 4.0), 0.375);
  EXPECT_DOUBLE_EQ(colormap_position(m, -4.0, -4.0, 1.0), 0.0);
  // Same magnitude, same distance from white on either side.
  EXPECT_DOUBLE_EQ(colormap_position(m, 2.0, -3.0, 3.0) - 0.5, 0.5 - colormap_position(m, -2.0, -3.0, 3.0));
  // All-positive data still puts zero at white.
  EXPECT_DOUBLE_EQ(colormap_position(m, 0.0, 0.0, 2.0), 0.5);
  EXPECT_DOUBLE_EQ(colormap_position(m, 2.0, 0.0, 2.0), 1.0);
  EXPECT_DOUBLE_EQ(colormap_position(m, 0.0, 0.0, 0.0), 0.5);
  EXPECT_TRUE(std::isnan(colormap_position(m, INFINITY, -1.0, 1.0)));
}

}  // namespace
}  // namespace attnlab
