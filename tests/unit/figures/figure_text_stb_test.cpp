// Figures without Cairo (the browser build, engine/figures/figure_text_stb.cpp): text widths from
// DejaVu Sans's own advance widths, and PNG/PDF refused with a sentence that says what to use.
#include "engine/attention/matrix.hpp"
#include "engine/figures/figure.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/cpu/dense.hpp"

#include <gtest/gtest.h>

namespace attnlab {
namespace {

TEST(FigureTextStb, WidthsAddUpAndScaleWithTheSize) {
  const double a = text_width("weights", 10), b = text_width(" = softmax(L)", 10);
  EXPECT_GT(a, 0);
  EXPECT_NEAR(text_width("weights = softmax(L)", 10), a + b, 1e-9 * (a + b));
  EXPECT_NEAR(text_width("weights", 20), 2 * a, 1e-6 * a);
  // A proportional font: a wide letter is wider than a narrow one, and bold is wider than regular.
  EXPECT_GT(text_width("WWWW", 10), text_width("iiii", 10));
  EXPECT_GT(text_width("weights", 10, true), a);
  // Non-ASCII glyphs the figures use (√, ·, ∞) have widths of their own.
  EXPECT_GT(text_width("\xE2\x88\x9A", 10), 0);
  EXPECT_GT(text_width("\xE2\x88\x9E", 10), 0);
}

TEST(FigureTextStb, PngAndPdfSayTheyNeedCairo) {
  const Scenario s = default_scenario();
  const Result r = compute_cpu(s.problem());
  const Figure f = layout_figure(s, r, Stage::Weights, FigureOptions{});
  try {
    (void)render_png(f);
    FAIL() << "render_png drew a PNG without Cairo";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("SVG"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)render_pdf(f), InputError);
  // SVG needs no Cairo, and its text is laid out with these widths.
  EXPECT_NE(render_svg(f).find("<text"), std::string::npos);
}

}  // namespace
}  // namespace attnlab
