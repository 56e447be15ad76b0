// Scrolling regions that show only whole lines (widgets/whole_lines.hpp), and what the text read back
// from a frame (widgets/drawn_text.hpp) counts as cut: the layout record's "clipped" as a viewer sees
// it (issue 69: "d_v" read "d v" at the foot of the inputs column on a projector).
#include "gui/widgets/drawn_text.hpp"
#include "gui/widgets/whole_lines.hpp"

#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace attnlab::gui {
namespace {

// ---- The span, pure ----

TEST(WholeLinesSpan, ARegionWhoseEdgeCutsNoLineKeepsItsEdges) {
  const LineSpan region{0, 100};
  const std::vector<LineSpan> lines{{0, 20}, {30, 50}, {60, 80}};
  const LineSpan s = whole_lines_span(lines, region, 4);
  EXPECT_EQ(s.top, region.top);
  EXPECT_EQ(s.bottom, region.bottom);
}

TEST(WholeLinesSpan, TheBottomEdgeEndsPastTheLastWholeLineAndBeforeTheCutOne) {
  const float pad = 4;
  const std::vector<LineSpan> lines{{0, 20}, {30, 50}, {60, 80}, {90, 110}};
  const LineSpan s = whole_lines_span(lines, {0, 100}, pad);
  EXPECT_EQ(s.top, 0);
  EXPECT_GE(s.bottom, 80);      // the third line whole
  EXPECT_LE(s.bottom, 90);      // nothing of the fourth
  EXPECT_EQ(s.bottom, 80 + pad);  // room for the third line's frame below it, which the gap allows
  for (const LineSpan& l : lines) EXPECT_FALSE(l.top < s.bottom && l.bottom > s.bottom) << l.top;
}

TEST(WholeLinesSpan, LinesThatTouchAreCutBetweenThem) {
  // Wrapped text: one line's box ends where the next begins, and the edge goes there.
  const std::vector<LineSpan> lines{{0, 22}, {22, 44}, {44, 66}};
  const LineSpan s = whole_lines_span(lines, {0, 55}, 6);
  EXPECT_EQ(s.bottom, 44);
}

TEST(WholeLinesSpan, ALineBesideTheCutOneThatTheNewEdgeWouldCutGoesToo) {
  // A label beside a taller field: the edge cuts the field; the label beside it starts lower than
  // the field but above the edge, and would be cut at the field's top in turn.
  const std::vector<LineSpan> lines{{0, 20}, {40, 70}, {50, 65}};
  const LineSpan s = whole_lines_span(lines, {0, 68}, 4);
  EXPECT_LE(s.bottom, 40);
  EXPECT_GE(s.bottom, 20);
  for (const LineSpan& l : lines) EXPECT_FALSE(l.top < s.bottom && l.bottom > s.bottom) << l.top;
}

TEST(WholeLinesSpan, AScrolledRegionsTopEdgeStartsAtItsFirstWholeLine) {
  const std::vector<LineSpan> lines{{-10, 10}, {20, 40}, {50, 70}};
  const LineSpan s = whole_lines_span(lines, {0, 80}, 4);
  EXPECT_GE(s.top, 10);
  EXPECT_LE(s.top, 20);
  EXPECT_EQ(s.bottom, 80);
}

TEST(WholeLinesSpan, ARegionWithNoWholeLineKeepsItsEdges) {
  const std::vector<LineSpan> lines{{-10, 40}};
  const LineSpan s = whole_lines_span(lines, {0, 30}, 4);
  EXPECT_EQ(s.top, 0);
  EXPECT_EQ(s.bottom, 30);
}

// ---- A real child window, read back from its draw lists ----

class WholeLinesTest : public ::testing::Test {
protected:
  void SetUp() override { start_headless_imgui(services, ImVec2(800, 600), TestFonts::Real); }
  void TearDown() override { ImGui::DestroyContext(); }

  // Frames of a child `height` high holding `lines` lines "line k: d_v", scrolled to `scroll`, with
  // or without keep_lines_whole; the text the last frame drew, and the child's clip rectangle.
  std::vector<DrawnText> child(float height, int lines, float scroll, bool whole, ImRect* clip = nullptr) {
    std::vector<DrawnText> texts;
    for (int frame = 0; frame < 3; ++frame) {
      ImGui::GetIO().DeltaTime = 1.0f / 60;
      ImGui::NewFrame();
      ImGui::SetNextWindowPos(ImVec2(10, 10));
      ImGui::SetNextWindowSize(ImVec2(600, 500));
      ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
      ImGui::BeginChild("region", ImVec2(0, height));
      ImGui::SetScrollY(scroll);
      for (int k = 0; k < lines; ++k) ImGui::Text("line %d: d_v", k);
      if (clip) *clip = ImGui::GetCurrentWindow()->InnerClipRect;
      if (whole) keep_lines_whole();
      ImGui::EndChild();
      ImGui::End();
      ImGui::Render();
      texts = drawn_texts(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
    }
    return texts;
  }

  // A text line's height and the spacing below it (the font is set by the first frame).
  static float line_pitch() {
    ImGui::NewFrame();
    const float pitch = ImGui::GetTextLineHeightWithSpacing();
    ImGui::EndFrame();
    return pitch;
  }

  Services services;
};

TEST_F(WholeLinesTest, AnEdgeThroughALineCutsItUnlessTheRegionKeepsLinesWhole) {
  const float pitch = line_pitch();
  // Half a line past the fourth (a child without a border has no padding): the fifth line is cut in two.
  const float height = pitch * 4.5f;
  const auto cut = child(height, 12, 0, false);
  EXPECT_TRUE(std::any_of(cut.begin(), cut.end(), [](const DrawnText& t) { return t.clipped; }));

  ImRect clip;
  const auto whole = child(height, 12, 0, true, &clip);
  int shown = 0;
  for (const DrawnText& t : whole) {
    if (t.text.rfind("line ", 0) != 0) continue;
    EXPECT_FALSE(t.clipped) << t.text;
    EXPECT_EQ(t.text.substr(t.text.size() - 3), "d_v") << "its underscore, the lowest ink of the line, is seen";
    ++shown;
  }
  // Every line that fits whole is still there, and none past it.
  EXPECT_EQ(shown, 4);
}

TEST_F(WholeLinesTest, AScrolledRegionShowsItsFirstLineWholeToo) {
  const float pitch = line_pitch();
  const float height = pitch * 5;
  const auto cut = child(height, 20, pitch * 2.5f, false);
  EXPECT_TRUE(std::any_of(cut.begin(), cut.end(), [](const DrawnText& t) { return t.clipped; }));
  const auto whole = child(height, 20, pitch * 2.5f, true);
  int shown = 0;
  for (const DrawnText& t : whole) {
    if (t.text.rfind("line ", 0) != 0) continue;
    EXPECT_FALSE(t.clipped) << t.text;
    ++shown;
  }
  EXPECT_GE(shown, 3);
}

TEST_F(WholeLinesTest, ARegionWhoseLinesFitIsLeftAsItIs) {
  const float pitch = line_pitch();
  const auto texts = child(pitch * 8, 3, 0, true);
  int shown = 0;
  for (const DrawnText& t : texts) shown += t.text.rfind("line ", 0) == 0 && !t.clipped;
  EXPECT_EQ(shown, 3);
}

// A glyph's quad is wider than its ink (the rasterizer's margin): a quad that reaches past its clip
// rectangle by less than that margin shows every stroke, and is not clipped; by more, it is.
TEST(DrawnTextInk, AGlyphsMarginPastItsClipIsNoCutItsInkIs) {
  Services services;
  start_headless_imgui(services, ImVec2(800, 600), TestFonts::Real);
  const ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
  ASSERT_NE(atlas.TexPixelsAlpha8, nullptr);
  // The glyph with the most blank columns on its left, in pixels on screen (texels at least a
  // quarter covered are ink), over every font's printable ASCII.
  ImFont* font = nullptr;
  const ImFontGlyph* g = nullptr;
  float margin = 0;
  for (ImFont* f : atlas.Fonts) {
    for (ImWchar c = 33; c < 127; ++c) {
      const ImFontGlyph* fg = f->FindGlyphNoFallback(c);
      if (!fg || !fg->Visible) continue;
      const int x0 = static_cast<int>(std::lround(fg->U0 * static_cast<float>(atlas.TexWidth)));
      const int x1 = static_cast<int>(std::lround(fg->U1 * static_cast<float>(atlas.TexWidth)));
      const int y0 = static_cast<int>(std::lround(fg->V0 * static_cast<float>(atlas.TexHeight)));
      const int y1 = static_cast<int>(std::lround(fg->V1 * static_cast<float>(atlas.TexHeight)));
      int ink = x1;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
          if (atlas.TexPixelsAlpha8[y * atlas.TexWidth + x] >= 64) ink = std::min(ink, x);
      if (ink >= x1) continue;
      const float m = static_cast<float>(ink - x0) * (fg->X1 - fg->X0) / static_cast<float>(x1 - x0);
      if (m > margin) margin = m, font = f, g = fg;
    }
  }
  if (margin < 0.9f) GTEST_SKIP() << "no glyph of these fonts has more than " << margin << " px of margin: too little to cut within it";
  const std::string text(1, static_cast<char>(g->Codepoint));
  const auto drawn_at = [&](float quad_past) {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(ImVec2(400, 200));
    ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // The pen on a whole pixel (ImGui floors it), the clip rectangle's left edge `quad_past` pixels
    // right of the glyph's quad.
    dl->PushClipRect(ImVec2(100 + g->X0 + quad_past, 50), ImVec2(300, 150));
    dl->AddText(font, font->FontSize, ImVec2(100, 80), IM_COL32_WHITE, text.c_str());
    dl->PopClipRect();
    ImGui::End();
    ImGui::Render();
    const auto texts = drawn_texts(*ImGui::GetDrawData(), atlas);
    const auto it = std::find_if(texts.begin(), texts.end(), [&](const DrawnText& t) { return t.text == text; });
    return it == texts.end() ? std::optional<bool>() : std::optional<bool>(it->clipped);
  };
  // Past the half pixel of rounding the reader allows any edge, within the blank margin.
  EXPECT_EQ(drawn_at(std::max(0.65f, margin - 0.25f)), std::optional<bool>(false)) << text << " with " << margin << " px of margin";
  EXPECT_EQ(drawn_at(margin + 2.0f), std::optional<bool>(true)) << text;
  ImGui::DestroyContext();
}

}  // namespace
}  // namespace attnlab::gui
