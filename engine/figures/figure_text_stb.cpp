// Figures without Cairo (ATTNLAB_CAIRO=OFF: the browser). The layout still needs the width of every
// label as DejaVu Sans draws it, which stb_truetype reads from the same font file; PNG and PDF need
// Cairo, so they say so (the browser's PNG is drawn by the browser from render_svg: web/).
#include "engine/attention/matrix.hpp"
#include "engine/figures/figure.hpp"
#include "engine/text/bidi.hpp"

#define STBTT_STATIC
#define STB_TRUETYPE_IMPLEMENTATION
#include <stb_truetype.h>

#include <array>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

namespace {

// Where Debian puts DejaVu Sans (the browser build embeds the files at the first of these paths).
constexpr std::array<const char*, 2> kRegular = {"/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                                                 "/usr/share/fonts/TTF/DejaVuSans.ttf"};
constexpr std::array<const char*, 2> kBold = {"/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
                                              "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf"};

struct Font {
  std::vector<unsigned char> bytes;
  stbtt_fontinfo info{};
  bool ok = false;
};

std::unique_ptr<Font> load_font(const std::array<const char*, 2>& paths) {
  auto font = std::make_unique<Font>();
  for (const char* path : paths) {
    std::ifstream in(path, std::ios::binary);
    if (!in) continue;
    font->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    font->ok = stbtt_InitFont(&font->info, font->bytes.data(), stbtt_GetFontOffsetForIndex(font->bytes.data(), 0)) != 0;
    if (font->ok) break;
  }
  return font;
}

const Font& font(bool bold) {
  static const std::unique_ptr<Font> regular = load_font(kRegular);
  static const std::unique_ptr<Font> heavy = load_font(kBold);
  return bold && heavy->ok ? *heavy : *regular;
}

// The next code point of UTF-8 text (a malformed byte counts as one replacement character).
char32_t next_code_point(std::string_view s, size_t& at) {
  const auto b = static_cast<unsigned char>(s[at]);
  const int extra = b < 0x80 ? 0 : (b >> 5) == 0x6 ? 1 : (b >> 4) == 0xE ? 2 : (b >> 3) == 0x1E ? 3 : -1;
  if (extra < 0 || at + static_cast<size_t>(extra) >= s.size()) {
    ++at;
    return 0xFFFD;
  }
  char32_t cp = extra == 0 ? b : b & (0x3F >> extra);
  for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[at + static_cast<size_t>(k)]) & 0x3F);
  at += static_cast<size_t>(extra) + 1;
  return cp;
}

}  // namespace

// As Cairo measures it with hinting off: the sum of the glyphs' advance widths at `size` points, of
// the forms the text is drawn in (Arabic's letters joined, as the browser draws the SVG).
double text_width(std::string_view typed, double size, bool bold) {
  const Font& f = font(bold);
  const std::string text = visual_order(typed);
  double width = 0;
  for (size_t at = 0; at < text.size();) {
    const char32_t cp = next_code_point(text, at);
    if (!f.ok) {
      width += 0.6 * size;  // no font file at all: DejaVu Sans's average advance, so layouts stay sane
      continue;
    }
    int advance = 0, bearing = 0;
    stbtt_GetCodepointHMetrics(&f.info, static_cast<int>(cp), &advance, &bearing);
    width += advance;
  }
  return f.ok ? width * static_cast<double>(stbtt_ScaleForMappingEmToPixels(&f.info, static_cast<float>(size))) : width;
}

std::string render_png(const Figure&, int) {
  throw InputError("PNG figures are drawn by Cairo, which this build does not have: export SVG (the browser "
                   "draws its PNG from the SVG)");
}

std::string render_pdf(const Figure&) {
  throw InputError("PDF figures need the desktop app (Cairo): export SVG or PNG here");
}

std::string render_pdf_pages(const std::vector<Figure>&) {
  throw InputError("PDF needs the desktop app (Cairo): write the worksheet as .tex here");
}

}  // namespace attnlab
