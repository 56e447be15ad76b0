// The fonts grow with the text (docs/ARCHITECTURE.md, "Fonts"): a character the atlas lacks, asked
// for by what draws a text (want_glyphs), is in the atlas from the next frame: DejaVu's own
// (Hebrew), else the fallback font's (Chinese, from fonts-droid-fallback); a character no font has
// is asked for once; the lab's token labels, the text the windows wrap and what is typed into any
// field bring theirs. On the real fonts, the app's frame at a time.
#include "engine/lessons/presets.hpp"
#include "gui/model_window/model_actions.hpp"
#include "headless_imgui.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

namespace attnlab::gui {
namespace {

constexpr ImWchar kShin = 0x05E9, kTo = 0x6771, kKyo = 0x4EAC;  // ש, 東, 京

class Fonts : public ::testing::Test, protected HeadlessApp {
protected:
  void SetUp() override {
    start(ImVec2(1280, 800), TestFonts::Real, load_preset("causal-six"));
    if (!services.fonts.unicode) GTEST_SKIP() << "DejaVu Sans (fonts-dejavu-core) is not installed";
  }
  void TearDown() override { stop(); }
  static bool has(ImWchar c) {
    for (const ImFont* f : ImGui::GetIO().Fonts->Fonts)
      if (!f->FindGlyphNoFallback(c)) return false;
    return true;
  }
  bool update() { return update_fonts(services.fonts, services.glyphs); }
};

TEST_F(Fonts, ACharacterAskedForIsInEveryBodyFontAfterTheUpdate) {
  ASSERT_FALSE(has(kShin)) << "Hebrew is not among the characters loaded at the start";
  EXPECT_FALSE(update()) << "nothing asked for: no rebuild";
  want_glyphs("Shalom: שלום, and ‘quotes’ the atlas has");
  EXPECT_TRUE(update());
  EXPECT_TRUE(has(kShin));
  EXPECT_TRUE(has(0x05DC));  // ל
  // The body fonts and ImGui's default are the rebuilt atlas's, and a frame draws with them.
  ImGuiIO& io = ImGui::GetIO();
  ASSERT_EQ(io.Fonts->Fonts.Size, 3);
  EXPECT_EQ(services.fonts.normal, io.Fonts->Fonts[0]);
  EXPECT_EQ(services.fonts.presenter, io.Fonts->Fonts[1]);
  EXPECT_EQ(services.fonts.presenter_small, io.Fonts->Fonts[2]);
  EXPECT_TRUE(io.FontDefault == nullptr || io.FontDefault == io.Fonts->Fonts[0] || io.FontDefault == io.Fonts->Fonts[1] ||
              io.FontDefault == io.Fonts->Fonts[2]);
  frame();
  EXPECT_FALSE(update()) << "asked for again, already there";
  want_glyphs("שלום");
  EXPECT_FALSE(update());
}

TEST_F(Fonts, ChineseComesFromTheFallbackFont) {
  if (services.fonts.fallback_path.empty()) GTEST_SKIP() << "no fallback font (fonts-droid-fallback) is installed";
  EXPECT_TRUE(services.fonts.fallback_data.empty()) << "read only when a character needs it";
  ASSERT_FALSE(has(kTo));
  want_glyphs("東京は日本の首都です");
  EXPECT_TRUE(update());
  EXPECT_TRUE(has(kTo));
  EXPECT_TRUE(has(kKyo));
  const ImFontGlyph* g = ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(kTo);
  ASSERT_TRUE(g);
  EXPECT_GT(g->AdvanceX, 0.5f * ImGui::GetIO().Fonts->Fonts[0]->FontSize) << "a real glyph, as wide as a character";
  // DejaVu's own glyphs stay DejaVu's: merging never replaces one, so Latin text measures the same.
  EXPECT_TRUE(has(0x221A));  // √
}

TEST_F(Fonts, ACharacterNoFontHasIsAskedForOnce) {
  const char* none = "\xEE\x80\x80";  // U+E000, private use: no font here defines it
  want_glyphs(none);
  EXPECT_TRUE(update()) << "asked for the first time: tried";
  ASSERT_FALSE(has(0xE000));
  for (int i = 0; i < 3; ++i) {
    want_glyphs(none);
    EXPECT_FALSE(update()) << "a character no font has must not rebuild the atlas every frame";
  }
  // Bytes that are not UTF-8 and characters past ImWchar's range (an emoji) ask for U+FFFD, as
  // ImGui draws them, and nothing breaks.
  want_glyphs("\xC3 \xF0\x9F\x98\x80 \xFF");
  update();
  frame();
}

TEST_F(Fonts, TheLabsLabelsTheModelsTextAndWrappedTextBringTheirCharacters) {
  if (services.fonts.fallback_path.empty()) GTEST_SKIP() << "no fallback font (fonts-droid-fallback) is installed";
  ASSERT_FALSE(has(kTo));
  Scenario doc = load_preset("causal-six");
  for (std::size_t i = 0; i < doc.query_tokens.size(); ++i) doc.query_tokens[i] = i % 2 ? "京" : "東";
  doc.key_tokens = doc.query_tokens;
  ASSERT_FALSE(doc.query_tokens.empty());
  reset_document(state, doc, "");
  frame();
  frame();
  EXPECT_TRUE(has(kTo));
  EXPECT_TRUE(has(kKyo));
  // An error naming a file in a folder of Hebrew letters.
  ASSERT_FALSE(has(kShin));
  state.error = "/home/שרה/notes.attn: not a scenario file";
  frame();
  frame();
  EXPECT_TRUE(has(kShin));
  // The Model window's text (the induction model reads symbols: the text is refused, and shown as
  // typed; the refusal, which quotes it, is taken away so that only the text asks).
  ASSERT_FALSE(has(0xAC00));  // 가
  window_open(state.view, "Model") = true;
  apply_commands(state, services, open_model_file(state.model, "induction", state.platform.threads));
  set_model_text(state.model, "가 1 2", false);
  ASSERT_FALSE(state.model.error.empty());
  state.model.error.clear();
  frame();
  frame();
  EXPECT_TRUE(has(0xAC00));
}

// Right-to-left labels are drawn in reading order (engine/text/bidi.hpp): the heatmaps ask for
// Arabic's joined forms, and the Q editor's token fields, which keep typed order, for the letters.
TEST_F(Fonts, ArabicLabelsBringTheFormsTheyAreDrawnIn) {
  constexpr ImWchar kBeh = 0x0628, kBehInitial = 0xFE91, kBehFinal = 0xFE90;
  ASSERT_FALSE(has(kBeh));
  ASSERT_FALSE(has(kBehInitial));
  Scenario doc = load_preset("causal-six");
  for (auto& token : doc.query_tokens) token = "بب";
  doc.key_tokens = doc.query_tokens;
  reset_document(state, doc, "");
  frame();
  frame();
  EXPECT_TRUE(has(kBehInitial));
  EXPECT_TRUE(has(kBehFinal));
  EXPECT_TRUE(has(kBeh));
}

// A character typed into any field is in the font in the frame that first shows it.
TEST_F(Fonts, TypedCharactersAreInTheFontBeforeTheFrameShowsThem) {
  ASSERT_FALSE(has(0x05D0));  // א
  ImGui::GetIO().AddInputCharactersUTF8("א");
  EXPECT_TRUE(update());
  EXPECT_TRUE(has(0x05D0));
  frame();
}

// A text of every CJK character cannot grow the atlas past what GL uploads: the first 4000 are
// added, in one rebuild, and the rest stay '?'.
TEST_F(Fonts, AHostileTextAddsAtMostFourThousandCharacters) {
  std::string all;
  for (unsigned c = 0x4E00; c < 0x9FA6; ++c) {
    all += static_cast<char>(0xE0 | (c >> 12));
    all += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    all += static_cast<char>(0x80 | (c & 0x3F));
  }
  want_glyphs(all);
  EXPECT_TRUE(update());
  EXPECT_EQ(services.fonts.added.size(), 4000u);
  int w = 0, h = 0;
  unsigned char* pixels = nullptr;
  ImGui::GetIO().Fonts->GetTexDataAsAlpha8(&pixels, &w, &h);
  EXPECT_LE(std::max(w, h), 8192) << w << " × " << h << ": GL 4.3 promises 16384, browsers 4096 and more";
  want_glyphs(all);
  EXPECT_FALSE(update()) << "past the limit, nothing more is added";
  frame();
}

TEST(FontsWithoutFallback, AnEmptyOverrideLeavesChineseUndrawnAndNothingBreaks) {
  ::setenv("ATTNLAB_FALLBACK_FONT", "", 1);
  HeadlessApp app;
  app.start(ImVec2(1280, 800), TestFonts::Real, load_preset("causal-six"));
  ::unsetenv("ATTNLAB_FALLBACK_FONT");
  EXPECT_TRUE(app.services.fonts.fallback_path.empty());
  want_glyphs("東京");
  update_fonts(app.services.fonts, app.services.glyphs);
  app.frame();
  EXPECT_FALSE(ImGui::GetIO().Fonts->Fonts[0]->FindGlyphNoFallback(kTo));
  app.stop();
}

}  // namespace
}  // namespace attnlab::gui
