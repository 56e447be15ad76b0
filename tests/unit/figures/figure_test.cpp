// Figures: PNGs decoded with stb_image show each cell in its colormap colour, blocked cells
// hatched and a colorbar; SVG has one rect per cell; layout properties (labels, contrast).
#include "engine/figures/export.hpp"
#include "support/build_features.hpp"
#include "engine/figures/figure.hpp"
#include "support/computed_preset.hpp"

#include <gtest/gtest.h>
#include <stb_image.h>

#include <cmath>
#include <memory>
#include <set>

namespace attnlab {
namespace {

using test::ComputedPreset;
using test::computed_preset;

struct Image {
  int w = 0, h = 0;
  std::vector<std::uint8_t> rgb;
  Rgb at(double x, double y) const {
    const int px = static_cast<int>(std::floor(x)), py = static_cast<int>(std::floor(y));
    const size_t k = (static_cast<size_t>(py) * static_cast<size_t>(w) + static_cast<size_t>(px)) * 3;
    return Rgb{rgb[k], rgb[k + 1], rgb[k + 2]};
  }
};

Image decode_png(const std::string& bytes) {
  Image img;
  int channels = 0;
  std::unique_ptr<stbi_uc, void (*)(void*)> data(
      stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(bytes.data()), static_cast<int>(bytes.size()), &img.w, &img.h, &channels, 3),
      stbi_image_free);
  if (!data) return img;
  img.rgb.assign(data.get(), data.get() + static_cast<size_t>(img.w) * static_cast<size_t>(img.h) * 3);
  return img;
}

std::string hex(Rgb c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%02x%02x%02x", c.r, c.g, c.b);
  return buf;
}

TEST(FigurePng, SizeCellColoursAndColorbar) {
  ATTNLAB_NEEDS_CAIRO();
  const ComputedPreset c = computed_preset("three-tokens");
  ExportOptions o;
  o.stage = Stage::Weights;
  o.width_px = 900;
  const Figure f = layout_figure(c.s, c.r, o.stage, o.figure);
  const Image img = decode_png(render_png_bytes(c.s, c.r, o));
  ASSERT_EQ(img.w, 900);
  const double scale = 900.0 / f.width;
  EXPECT_EQ(img.h, std::lround(f.height * scale));
  ASSERT_EQ(f.panels.size(), 1u);
  const PanelInfo& p = f.panels[0];
  const Colormap& map = colormap(p.colormap);
  EXPECT_EQ(p.colormap, "viridis");
  for (Eigen::Index i = 0; i < p.rows; ++i) {
    for (Eigen::Index j = 0; j < p.cols; ++j) {
      const double cx = (p.x + p.cell_w * (j + 0.5)) * scale, cy = (p.y + p.cell_h * (i + 0.5)) * scale;
      const Rgb want = map.at(colormap_position(map, c.r.weights(i, j), p.lo, p.hi));
      EXPECT_EQ(hex(img.at(cx, cy)), hex(want)) << "cell " << i << "," << j;
    }
  }
  // The colorbar: its top shows the high end, its bottom the low end, in between the map in order.
  const double bx = (p.colorbar_x + p.colorbar_w / 2) * scale;
  auto bar_at = [&](double frac) { return img.at(bx, (p.colorbar_y + p.colorbar_h * (1 - frac)) * scale); };
  // Slice k of 128 shows the value lo + (hi − lo)·k/127; sample the middle of its band (the
  // outermost bands touch the frame line, whose anti-aliasing blends into them).
  for (int k = 2; k < 126; k += 7) {
    const double v = p.lo + (p.hi - p.lo) * k / 127;
    EXPECT_EQ(hex(bar_at((k + 0.5) / 128)), hex(map.at(colormap_position(map, v, p.lo, p.hi)))) << "slice " << k;
  }
  EXPECT_EQ(hex(bar_at(0.5)), hex(map.at(colormap_position(map, p.lo + (p.hi - p.lo) * 64 / 127, p.lo, p.hi))));
}

TEST(FigurePng, BlockedCellsAreHatchedNotColoured) {
  ATTNLAB_NEEDS_CAIRO();
  const ComputedPreset c = computed_preset("causal-six");
  for (Stage stage : {Stage::Logits, Stage::Weights, Stage::Saturation}) {
    ExportOptions o;
    o.stage = stage;
    const Figure f = layout_figure(c.s, c.r, stage, o.figure);
    const Image img = decode_png(render_png_bytes(c.s, c.r, o));
    const double scale = img.w / f.width;
    const PanelInfo& p = f.panels.at(0);
    int blocked = 0;
    for (Eigen::Index i = 0; i < p.rows; ++i) {
      for (Eigen::Index j = 0; j < p.cols; ++j) {
        // Every pixel of the cell's inner 70%.
        std::set<std::string> colours;
        int grey = 0;
        const double x0 = (p.x + p.cell_w * (j + 0.15)) * scale, y0 = (p.y + p.cell_h * (i + 0.15)) * scale;
        const double x1 = (p.x + p.cell_w * (j + 0.85)) * scale, y1 = (p.y + p.cell_h * (i + 0.85)) * scale;
        for (double y = y0; y < y1; y += 1) {
          for (double x = x0; x < x1; x += 1) {
            const Rgb px = img.at(x, y);
            colours.insert(hex(px));
            if (px.r == px.g && px.g == px.b && px.r < 215) ++grey;
          }
        }
        if (j > i) {
          ++blocked;
          EXPECT_GT(colours.size(), 2u) << stage_name(stage) << " cell " << i << "," << j << " should be hatched";
          EXPECT_GT(grey, 10) << stage_name(stage) << " cell " << i << "," << j << " has no hatch lines";
        } else {
          EXPECT_EQ(colours.size(), 1u) << stage_name(stage) << " cell " << i << "," << j << " should be one flat colour";
        }
      }
    }
    EXPECT_EQ(blocked, 15);
  }
}

TEST(FigurePng, WidthOptionScalesAndIsDeterministic) {
  ATTNLAB_NEEDS_CAIRO();
  const ComputedPreset c = computed_preset("three-tokens");
  ExportOptions o;
  o.stage = Stage::Pipeline;
  o.figure.annotate = true;
  const std::string a = render_png_bytes(c.s, c.r, o), b = render_png_bytes(c.s, c.r, o);
  EXPECT_EQ(a, b);
  const Figure f = layout_figure(c.s, c.r, o.stage, o.figure);
  EXPECT_EQ(decode_png(a).w, default_png_width(f));
  EXPECT_EQ(f.panels.size(), 4u);
  o.width_px = 640;
  EXPECT_EQ(decode_png(render_png_bytes(c.s, c.r, o)).w, 640);
}

TEST(FigureLayout, FixedRangeAndColormapAreHonoured) {
  const ComputedPreset c = computed_preset("three-tokens");
  FigureOptions o;
  o.colormap = "magma";
  o.range = std::make_pair(0.0, 1.0);
  const Figure f = layout_figure(c.s, c.r, Stage::Weights, o);
  EXPECT_EQ(f.panels[0].colormap, "magma");
  EXPECT_EQ(f.panels[0].lo, 0.0);
  EXPECT_EQ(f.panels[0].hi, 1.0);
  // Signed stages default to the diverging map, symmetric about zero.
  const Figure g = layout_figure(c.s, c.r, Stage::Scores, FigureOptions{});
  EXPECT_EQ(g.panels[0].colormap, kDefaultDiverging);
  EXPECT_EQ(g.panels[0].lo, -g.panels[0].hi);
  EXPECT_THROW(layout_figure(c.s, c.r, Stage::Weights, FigureOptions{"", false, "jet", {}, -1}), InputError);
}

TEST(FigureLayout, AnnotationsUseTheMoreContrastingTextColour) {
  const ComputedPreset c = computed_preset("causal-six");
  FigureOptions o;
  o.annotate = true;
  const Figure f = layout_figure(c.s, c.r, Stage::Weights, o);
  std::map<std::pair<int, int>, Rgb> fills;
  for (const auto& item : f.items)
    if (const auto* r = std::get_if<RectItem>(&item); r && r->role == "cell") fills[{r->row, r->col}] = r->fill;
  auto lum = [](Rgb c) {
    auto lin = [](std::uint8_t u) { const double x = u / 255.0; return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4); };
    return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  };
  auto contrast = [&](Rgb a, Rgb b) {
    const double la = lum(a), lb = lum(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
  };
  int values = 0;
  const PanelInfo& p = f.panels[0];
  for (const auto& item : f.items) {
    const auto* t = std::get_if<TextItem>(&item);
    if (!t || t->role != "value") continue;
    ++values;
    const int j = static_cast<int>((t->x - p.x) / p.cell_w), i = static_cast<int>((t->y - p.y) / p.cell_h);
    const Rgb fill = fills.at({i, j});
    const Rgb other = t->color.r == 0 ? Rgb{255, 255, 255} : Rgb{0, 0, 0};
    EXPECT_GE(contrast(t->color, fill), contrast(other, fill)) << t->text;
    EXPECT_GE(contrast(t->color, fill), 4.5) << t->text;
  }
  EXPECT_EQ(values, 21);  // the lower triangle of 6 × 6: blocked weights carry no number
}

TEST(FigureLayout, LongLabelsAreRotatedAndTokensAppear) {
  ComputedPreset c = computed_preset("three-tokens");
  c.s.key_tokens = {"attention", "transformer", "embedding"};
  const Figure f = layout_figure(c.s, c.r, Stage::Weights, FigureOptions{});
  int rotated = 0;
  std::set<std::string> texts;
  for (const auto& item : f.items) {
    if (const auto* t = std::get_if<TextItem>(&item)) {
      texts.insert(t->text);
      if (t->role == "col-label" && t->rotation_deg != 0) ++rotated;
    }
  }
  EXPECT_EQ(rotated, 3);
  for (const char* s : {"attention", "transformer", "embedding", "t1", "t2", "t3", "queries", "keys", "Attention by hand on three tokens"})
    EXPECT_EQ(texts.count(s), 1u) << s;
  for (const auto& item : f.items) {
    if (const auto* t = std::get_if<TextItem>(&item)) {
      EXPECT_GE(t->x, 0);
      EXPECT_LE(t->x, f.width);
      EXPECT_GE(t->y, 0);
      EXPECT_LE(t->y, f.height) << t->text;
    }
  }
}

TEST(FigureSvg, OneRectPerCellAndTextForLabelsAndValues) {
  const ComputedPreset c = computed_preset("causal-six");
  FigureOptions o;
  o.annotate = true;
  const std::string svg = render_svg(layout_figure(c.s, c.r, Stage::Weights, o));
  size_t cells = 0, pos = 0;
  while ((pos = svg.find("<rect class=\"cell", pos)) != std::string::npos) ++cells, ++pos;
  EXPECT_EQ(cells, 36u);
  EXPECT_NE(svg.find(">The</text>"), std::string::npos);
  EXPECT_NE(svg.find(">mat</text>"), std::string::npos);
  EXPECT_NE(svg.find(">1.00</text>"), std::string::npos);
  EXPECT_NE(svg.find("font-family=\"DejaVu Sans\""), std::string::npos);
  EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

TEST(FigureLayout, ArabicIsMeasuredInTheFormsItIsDrawnIn) {
  // Three behs join (initial, medial, final): the layout measures those forms, as they are drawn.
  EXPECT_DOUBLE_EQ(text_width("ببب", 12), text_width("\uFE90\uFE92\uFE91", 12));
  EXPECT_DOUBLE_EQ(text_width("لا", 12), text_width("\uFEFB", 12));
}

TEST(FigurePdf, IsAPdf) {
  ATTNLAB_NEEDS_CAIRO();
  const ComputedPreset c = computed_preset("three-tokens");
  const std::string pdf = render_pdf(layout_figure(c.s, c.r, Stage::Pipeline, FigureOptions{}));
  EXPECT_EQ(pdf.substr(0, 5), "%PDF-");
  EXPECT_NE(pdf.find("%%EOF"), std::string::npos);
}

}  // namespace
}  // namespace attnlab
