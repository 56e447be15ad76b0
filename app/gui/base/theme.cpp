// Themes and fonts: DejaVu Sans found at run time, presenter mode scales everything up.
#include "gui/base/theme.hpp"

#include "engine/text/bidi.hpp"

#include <imgui_internal.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>

namespace attnlab::gui {

namespace {

constexpr float kNormalSize = 17.0f;
constexpr float kPresenterSize = 28.0f;
// 1024 / 1280 of it (the XGA projector against 1280 × 720): the same fraction of the wall.
constexpr float kPresenterSmallSize = 22.0f;

// The first of `paths` that exists, or "".
std::string first_existing(std::initializer_list<const char*> paths) {
  for (const char* p : paths) {
    std::error_code ec;
    if (std::filesystem::exists(p, ec)) return p;
  }
  return "";
}

std::string find_font() {
  if (const char* env = std::getenv("ATTNLAB_FONT"); env && *env && std::filesystem::exists(env)) return env;
  return first_existing({"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf",
                         "/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/local/share/fonts/DejaVuSans.ttf"});
}

// The CJK font for what DejaVu lacks; $ATTNLAB_FALLBACK_FONT set but empty: none.
std::string find_fallback_font() {
  if (const char* env = std::getenv("ATTNLAB_FALLBACK_FONT")) return *env && std::filesystem::exists(env) ? env : "";
  return first_existing({"/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",  // fonts-droid-fallback
                         "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"});           // fonts-wqy-microhei
}

// Beyond Basic Latin and Latin-1 (·, ×, ÷), what the formulas and a student's European text use.
const ImWchar kExtraRanges[] = {
    0x0100, 0x024F,  // Latin Extended-A and -B: a student's text in Polish, Czech, Hungarian (ł, ř, ő)
    0x0370, 0x03FF,  // Greek: τ σ Σ
    0x0400, 0x04FF,  // Cyrillic
    0x1D40, 0x1D40,  // ᵀ
    0x1E00, 0x1EFF,  // Latin Extended Additional (Vietnamese)
    0x2010, 0x2027,  // dashes, … and •
    0x2070, 0x209F,  // super/subscripts
    0x20A0, 0x20BF,  // currency: € ₹
    0x2113, 0x2113,  // ℓ, the online softmax's running sum
    0x2190, 0x21FF,  // arrows; a token's line break ↵ and tab ⇥
    0x2200, 0x22FF,  // √ ∞ − ⊙ ≤ ≥ ≈ and friends
    0x25A0, 0x25FF,  // ■ ▶ ▼
    0,
};

constexpr float kSizes[] = {kNormalSize, kPresenterSize, kPresenterSmallSize};

// The most characters the atlas takes beyond its start: everyday Chinese text needs about 3000, and
// a hostile text of every CJK character would make an atlas past what GL uploads, and a rebuild of
// seconds. Those past it stay '?'.
constexpr std::size_t kMaxAdded = 4000;

// ImGui's own font (ASCII only) at the three sizes, where DejaVu cannot be read.
void add_default_fonts(Fonts& f, Glyphs& glyphs) {
  ImGuiIO& io = ImGui::GetIO();
  ImFontConfig cfg;
  cfg.SizePixels = 13.0f;
  f.normal = io.Fonts->AddFontDefault(&cfg);
  cfg.SizePixels = 26.0f;
  f.presenter = io.Fonts->AddFontDefault(&cfg);
  cfg.SizePixels = 20.0f;
  f.presenter_small = io.Fonts->AddFontDefault(&cfg);
  f.font_path.clear();
  f.unicode = false;
  glyphs = Glyphs::ascii();
}

// Whether the fallback font's bytes are in memory (read on first use: 4 MB that a text without
// CJK never needs).
bool fallback_ready(Fonts& f) {
  if (!f.fallback_data.empty()) return true;
  if (f.fallback_path.empty()) return false;
  std::ifstream in(f.fallback_path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in ? static_cast<std::streamoff>(in.tellg()) : 0;
  if (size > 12 && size < (std::streamoff{1} << 30)) {
    f.fallback_data.resize(static_cast<std::size_t>(size));
    in.seekg(0);
    in.read(f.fallback_data.data(), size);
  }
  if (!in || f.fallback_data.empty()) {
    f.fallback_data.clear();
    f.fallback_path.clear();  // unreadable: its characters stay '?'
  }
  return !f.fallback_data.empty();
}

// DejaVu at the three sizes with its ranges and the added characters, the fallback font merged
// into each for the added characters DejaVu lacks (a merged font never replaces a glyph). False
// when the atlas could not read DejaVu.
bool add_body_fonts(Fonts& f) {
  ImGuiIO& io = ImGui::GetIO();
  ImFontGlyphRangesBuilder all, added;
  all.AddRanges(io.Fonts->GetGlyphRangesDefault());
  all.AddRanges(kExtraRanges);
  for (const ImWchar c : f.added) {
    all.AddChar(c);
    added.AddChar(c);
  }
  f.ranges.clear();
  f.added_ranges.clear();
  all.BuildRanges(&f.ranges);
  added.BuildRanges(&f.added_ranges);
  const bool merge = !f.added.empty() && fallback_ready(f);
  ImFont** slots[] = {&f.normal, &f.presenter, &f.presenter_small};
  for (int i = 0; i < 3; ++i) {
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    *slots[i] = io.Fonts->AddFontFromFileTTF(f.font_path.c_str(), kSizes[i], &cfg, f.ranges.Data);
    if (!*slots[i]) return false;
    if (!merge) continue;
    cfg.MergeMode = true;
    cfg.FontDataOwnedByAtlas = false;
    io.Fonts->AddFontFromMemoryTTF(f.fallback_data.data(), static_cast<int>(f.fallback_data.size()), kSizes[i], &cfg, f.added_ranges.Data);
  }
  return true;
}

// The characters asked for in the current ImGui context since its last update_fonts.
std::set<ImWchar>& wanted_glyphs() {
  static const ImGuiContext* context = nullptr;
  static std::set<ImWchar> chars;
  if (context != ImGui::GetCurrentContext()) {
    context = ImGui::GetCurrentContext();
    chars.clear();
  }
  return chars;
}

}  // namespace

Palette palette(const Look& look) {
  const bool dark = look.theme == Theme::Dark;
  const bool hc = look.presenter;  // presenter mode pushes contrast to the maximum
  Palette p{};
  if (dark) {
    p.text = hc ? IM_COL32(255, 255, 255, 255) : IM_COL32(235, 235, 235, 255);
    p.text_dim = hc ? IM_COL32(215, 215, 215, 255) : IM_COL32(170, 170, 170, 255);
    p.accent = IM_COL32(110, 190, 255, 255);
    p.error = IM_COL32(255, 110, 100, 255);
    p.warning = IM_COL32(255, 200, 80, 255);
    p.good = IM_COL32(120, 220, 120, 255);
    p.hatch_a = IM_COL32(40, 40, 40, 255);
    p.hatch_b = IM_COL32(120, 120, 120, 255);
    p.selected = IM_COL32(255, 255, 255, 255);
    p.hovered = IM_COL32(255, 220, 0, 255);
    p.cell_border = IM_COL32(20, 20, 20, 255);
    p.flagged_row_bg = IM_COL32(120, 40, 30, 255);
    p.number = IM_COL32(255, 214, 110, 255);
  } else {
    p.text = hc ? IM_COL32(0, 0, 0, 255) : IM_COL32(20, 20, 20, 255);
    p.text_dim = hc ? IM_COL32(40, 40, 40, 255) : IM_COL32(90, 90, 90, 255);
    p.accent = IM_COL32(0, 90, 200, 255);
    p.error = IM_COL32(190, 20, 20, 255);
    p.warning = IM_COL32(160, 100, 0, 255);
    p.good = IM_COL32(0, 120, 0, 255);
    p.hatch_a = IM_COL32(90, 90, 90, 255);
    p.hatch_b = IM_COL32(225, 225, 225, 255);
    p.selected = IM_COL32(0, 0, 0, 255);
    p.hovered = IM_COL32(230, 120, 0, 255);
    p.cell_border = IM_COL32(255, 255, 255, 255);
    p.flagged_row_bg = IM_COL32(255, 200, 190, 255);
    p.number = IM_COL32(150, 60, 0, 255);
  }
  return p;
}

void load_fonts(Fonts& f, Glyphs& glyphs) {
  f.font_path = find_font();
  f.fallback_path = find_fallback_font();
  f.added.clear();
  f.fallback_data.clear();
  if (f.font_path.empty() || !add_body_fonts(f)) {
    ImGui::GetIO().Fonts->Clear();
    add_default_fonts(f, glyphs);
    return;
  }
  f.unicode = true;
  glyphs = Glyphs{};
}

std::string drawn_text(std::string_view text) {
  std::string shown = visual_order(text);
  want_glyphs(shown);
  return shown;
}

void want_glyphs(std::string_view text) {
  if (!ImGui::GetCurrentContext() || ImGui::GetIO().Fonts->Fonts.empty()) return;
  const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];  // the three body fonts share their characters
  const char* end = text.data() + text.size();
  for (const char* s = text.data(); s < end;) {
    if (static_cast<unsigned char>(*s) < 0x80) {
      ++s;
      continue;
    }
    unsigned int c = 0;
    s += ImTextCharFromUtf8(&c, s, end);  // past ImWchar's range: U+FFFD, as ImGui draws it
    if (!font->FindGlyphNoFallback(static_cast<ImWchar>(c))) wanted_glyphs().insert(static_cast<ImWchar>(c));
  }
}

bool update_fonts(Fonts& f, Glyphs& glyphs) {
  std::set<ImWchar>& asked = wanted_glyphs();
  ImGuiIO& io = ImGui::GetIO();
  // What was typed since the last frame, into any field: in the font before the frame shows it.
  if (!io.Fonts->Fonts.empty()) {
    for (const ImWchar c : io.InputQueueCharacters) {
      if (c >= 0x80 && !io.Fonts->Fonts[0]->FindGlyphNoFallback(c)) asked.insert(c);
    }
  }
  bool fresh = false;
  for (const ImWchar c : asked) {
    if (f.added.size() >= kMaxAdded) break;
    fresh = f.added.insert(c).second || fresh;
  }
  asked.clear();
  if (!fresh || f.font_path.empty()) return false;
  const int default_at = static_cast<int>(std::find(io.Fonts->Fonts.begin(), io.Fonts->Fonts.end(), io.FontDefault) - io.Fonts->Fonts.begin());
  io.Fonts->Clear();
  if (!add_body_fonts(f)) {  // DejaVu has gone since the start
    io.Fonts->Clear();
    add_default_fonts(f, glyphs);
  }
  io.Fonts->Build();
  io.FontDefault = default_at < io.Fonts->Fonts.Size ? io.Fonts->Fonts[default_at] : nullptr;
  return true;
}

bool small_screen(ImVec2 display) {
  return display.x > 0 && display.y > 0 && (display.x < 1280.0f * 0.95f || display.y < 720.0f * 0.95f);
}

ImFont* body_font(const Look& look, bool small, const Fonts& fonts) {
  ImFont* f = !look.presenter ? fonts.normal
              : small && fonts.presenter_small ? fonts.presenter_small
                                               : fonts.presenter;
  return f ? f : ImGui::GetIO().Fonts->Fonts.empty() ? nullptr : ImGui::GetIO().Fonts->Fonts[0];
}

namespace {
float g_smallest_text = 0;
}  // namespace

float smallest_text() { return g_smallest_text; }

void set_style(const Look& look, bool small, const Fonts& fonts) {
  g_smallest_text = look.presenter ? kLegibleText : 0.0f;
  ImGuiStyle style;
  if (look.theme == Theme::Dark) ImGui::StyleColorsDark(&style);
  else ImGui::StyleColorsLight(&style);
  style.WindowRounding = 0;
  style.FrameRounding = 3;
  style.GrabRounding = 3;
  style.FramePadding = ImVec2(6, 4);
  style.ItemSpacing = ImVec2(8, 6);
  style.WindowBorderSize = 0;
  if (look.theme == Theme::Light) {
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.97f, 0.97f, 0.96f, 1);
  } else {
    style.Colors[ImGuiCol_WindowBg] = ImVec4(0.09f, 0.09f, 0.10f, 1);
  }
  if (look.presenter) {
    // High contrast: pure text colours and stronger frames.
    const bool dark = look.theme == Theme::Dark;
    style.Colors[ImGuiCol_Text] = dark ? ImVec4(1, 1, 1, 1) : ImVec4(0, 0, 0, 1);
    style.Colors[ImGuiCol_WindowBg] = dark ? ImVec4(0, 0, 0, 1) : ImVec4(1, 1, 1, 1);
    style.FrameBorderSize = 1;
    // Paddings and spacings grow with the font (1.5 at the presenter size).
    const ImFont* body = body_font(look, small, fonts);
    style.ScaleAllSizes(body && fonts.presenter ? 1.5f * body->FontSize / fonts.presenter->FontSize : 1.5f);
  }
  // Child windows sit on the cleared background: an opaque ChildBg would only cost fill rate.
  style.Colors[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 0);
  ImGui::GetStyle() = style;
  ImGui::GetIO().FontDefault = body_font(look, small, fonts);
}

}  // namespace attnlab::gui
