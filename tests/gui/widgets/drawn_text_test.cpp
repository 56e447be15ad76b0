// Text read back from a frame's draw lists (widgets/drawn_text.hpp), on an ImGui context with the
// app's real fonts: what was written, at what size, whether it was cut, and turned labels.
#include "gui/widgets/drawn_text.hpp"
#include "gui/widgets/layout_record.hpp"

#include "headless_imgui.hpp"

#include <gtest/gtest.h>
#include <imgui.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace attnlab::gui {
namespace {

class DrawnTextTest : public ::testing::Test {
protected:
  void SetUp() override { start_headless_imgui(services, ImVec2(800, 600), TestFonts::Real); }
  void TearDown() override { ImGui::DestroyContext(); }

  // One frame of `draw` inside a window at (10, 10), then the text it drew.
  template <class Draw>
  std::vector<DrawnText> frame(Draw draw) {
    ImGui::GetIO().DeltaTime = 1.0f / 60;
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(10, 10));
    ImGui::SetNextWindowSize(ImVec2(600, 400));
    ImGui::Begin("probe", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoSavedSettings);
    draw();
    ImGui::End();
    ImGui::Render();
    return drawn_texts(*ImGui::GetDrawData(), *ImGui::GetIO().Fonts);
  }

  static const DrawnText* find(const std::vector<DrawnText>& texts, const std::string& text) {
    const auto it = std::find_if(texts.begin(), texts.end(), [&](const DrawnText& t) { return t.text == text; });
    return it == texts.end() ? nullptr : &*it;
  }

  Services services;
};

TEST_F(DrawnTextTest, ReadsBackWhatWasWrittenWithItsSizeAndPlace) {
  ImVec2 at;
  const auto texts = frame([&] {
    at = ImGui::GetCursorScreenPos();
    ImGui::TextUnformatted("weights 0.25 and −∞");
  });
  const DrawnText* t = find(texts, "weights 0.25 and −∞");
  ASSERT_NE(t, nullptr) << (texts.empty() ? "nothing read" : texts[0].text);
  EXPECT_FLOAT_EQ(t->px, ImGui::GetFontSize());
  EXPECT_FALSE(t->clipped);
  EXPECT_FALSE(t->upright);
  // Its box lies on the line it was written on, as wide as ImGui measures it (glyph edges aside).
  const ImVec2 size = ImGui::CalcTextSize("weights 0.25 and −∞");
  EXPECT_GE(t->min.x, at.x - 1);
  EXPECT_GE(t->min.y, at.y - 1);
  EXPECT_LE(t->max.y, at.y + size.y + 1);
  EXPECT_NEAR(t->max.x - t->min.x, size.x, ImGui::GetFontSize() * 0.3f);
}

TEST_F(DrawnTextTest, ASmallerFontIsMeasuredAtItsOwnSize) {
  float small = 0;
  const auto texts = frame([&] {
    small = ImGui::GetFontSize() * 0.6f;
    ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), small, ImGui::GetCursorScreenPos(), IM_COL32_WHITE, "q_1 @7");
  });
  const DrawnText* t = find(texts, "q_1 @7");
  ASSERT_NE(t, nullptr) << texts.size() << " runs, the first: " << (texts.empty() ? "" : texts[0].text);
  EXPECT_NEAR(t->px, small, 0.01f);
}

TEST_F(DrawnTextTest, TextCutByItsClipRectangleIsClipped) {
  const auto texts = frame([&] {
    ImGui::BeginChild("narrow", ImVec2(60, 40));
    ImGui::TextUnformatted("a sentence far wider than sixty pixels");
    ImGui::EndChild();
    ImGui::TextUnformatted("whole");
  });
  bool cut = false;
  for (const DrawnText& t : texts) cut = cut || (t.clipped && t.text.rfind("a sen", 0) == 0);
  EXPECT_TRUE(cut);
  const DrawnText* whole = find(texts, "whole");
  ASSERT_NE(whole, nullptr);
  EXPECT_FALSE(whole->clipped);
}

TEST_F(DrawnTextTest, TurnedLabelsReadBottomToTop) {
  const auto texts = frame([&] {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const int first = dl->VtxBuffer.Size;
    const ImVec2 c(200, 200);
    dl->AddText(ImVec2(c.x - 20, c.y - 8), IM_COL32_WHITE, "token");
    for (int k = first; k < dl->VtxBuffer.Size; ++k) {  // a quarter turn anticlockwise about c, as heatmaps turn labels
      ImVec2& p = dl->VtxBuffer[k].pos;
      const float dx = p.x - c.x, dy = p.y - c.y;
      p = ImVec2(c.x + dy, c.y - dx);
    }
  });
  const DrawnText* t = find(texts, "token");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->upright);
  EXPECT_GT(t->max.y - t->min.y, t->max.x - t->min.x);
}

// The layout record's cover: a line at the foot of a column, under a floating window above and the
// status bar below, is hidden by the two together (it was counted as clipped text in plain sight);
// under one of them only, it is partly under that one.
TEST(LayoutRecordCover, TwoWindowsTogetherHideWhatNeitherHidesAlone) {
  ImDrawList* column = reinterpret_cast<ImDrawList*>(0x10);  // only compared, never read
  ImDrawList* view = reinterpret_cast<ImDrawList*>(0x20);
  ImDrawList* status = reinterpret_cast<ImDrawList*>(0x30);
  DrawnText line;
  line.text = "Inputs";
  line.min = ImVec2(60, 666);
  line.max = ImVec2(135, 690);
  line.px = 28;
  line.list = column;
  const OverWindow host{ImVec2(0, 0), ImVec2(1280, 720), "##host", {column}};
  const OverWindow lesson{ImVec2(0, 40), ImVec2(1280, 685), "Lesson view", {view}};
  const OverWindow bar{ImVec2(0, 685), ImVec2(1280, 720), "##status", {status}};
  const auto cover = [&](const std::vector<OverWindow>& windows) {
    const auto j = nlohmann::json::parse(layout_record_json(LayoutRecord{}, {line}, windows, ImVec2(1280, 720), true, 1.0f));
    return std::make_pair(j["texts"][0]["hidden"].get<bool>(), j["texts"][0]["under"].get<std::string>());
  };
  EXPECT_EQ(cover({host, lesson, bar}), std::make_pair(true, std::string()));
  EXPECT_EQ(cover({host, lesson}), std::make_pair(false, std::string("Lesson view")));
  EXPECT_EQ(cover({host, bar}), std::make_pair(false, std::string("##status")));
  // Drawn after the line, not before: the status bar drawn first hides nothing of it.
  EXPECT_EQ(cover({bar, host, lesson}), std::make_pair(false, std::string("Lesson view")));
}

}  // namespace
}  // namespace attnlab::gui
