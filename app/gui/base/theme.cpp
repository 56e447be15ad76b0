// Themes and fonts: DejaVu Sans found at run time, presenter mode scales everything up.
#include "gui/base/theme.hpp"

#include <cstdlib>
#include <filesystem>

namespace attnlab::gui {

namespace {

constexpr float kNormalSize = 17.0f;
constexpr float kPresenterSize = 28.0f;
// 1024 / 1280 of it (the XGA projector against 1280 × 720): the same fraction of the wall.
constexpr float kPresenterSmallSize = 22.0f;

std::string find_font() {
  if (const char* env = std::getenv("ATTNLAB_FONT"); env && *env && std::filesystem::exists(env)) return env;
  const char* candidates[] = {
      "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
      "/usr/share/fonts/TTF/DejaVuSans.ttf",
      "/usr/share/fonts/dejavu/DejaVuSans.ttf",
      "/usr/local/share/fonts/DejaVuSans.ttf",
  };
  for (const char* c : candidates) {
    std::error_code ec;
    if (std::filesystem::exists(c, ec)) return c;
  }
  return "";
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
  ImGuiIO& io = ImGui::GetIO();
  f.font_path = find_font();
  if (f.font_path.empty()) {
    ImFontConfig cfg;
    cfg.SizePixels = 13.0f;
    f.normal = io.Fonts->AddFontDefault(&cfg);
    cfg.SizePixels = 26.0f;
    f.presenter = io.Fonts->AddFontDefault(&cfg);
    cfg.SizePixels = 20.0f;
    f.presenter_small = io.Fonts->AddFontDefault(&cfg);
    f.unicode = false;
    glyphs = Glyphs::ascii();
    return;
  }
  ImFontGlyphRangesBuilder builder;
  builder.AddRanges(io.Fonts->GetGlyphRangesDefault());  // Basic Latin + Latin-1 (·, ×, ÷)
  const ImWchar extra[] = {
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
  builder.AddRanges(extra);
  builder.BuildRanges(&f.ranges);
  ImFontConfig cfg;
  cfg.OversampleH = 2;
  cfg.OversampleV = 1;
  f.normal = io.Fonts->AddFontFromFileTTF(f.font_path.c_str(), kNormalSize, &cfg, f.ranges.Data);
  f.presenter = io.Fonts->AddFontFromFileTTF(f.font_path.c_str(), kPresenterSize, &cfg, f.ranges.Data);
  f.presenter_small = io.Fonts->AddFontFromFileTTF(f.font_path.c_str(), kPresenterSmallSize, &cfg, f.ranges.Data);
  if (!f.normal || !f.presenter || !f.presenter_small) {
    io.Fonts->Clear();
    f.font_path.clear();
    load_fonts(f, glyphs);
    return;
  }
  f.unicode = true;
  glyphs = Glyphs{};
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

void set_style(const Look& look, bool small, const Fonts& fonts) {
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
