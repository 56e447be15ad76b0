// Text read back from a frame's draw lists through the font atlas's glyph table (drawn_text.hpp).
#include "gui/widgets/drawn_text.hpp"

#include "engine/text/utf8.hpp"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <map>
#include <optional>

namespace attnlab::gui {

namespace {

// A glyph of the atlas: where it sits in the texture, and what it is.
struct AtlasGlyph {
  const ImFontGlyph* glyph = nullptr;
  float font_size = 0;  // the size its font was baked at
};

using UvRect = std::array<float, 4>;  // u0, v0, u1, v1

// Every visible glyph of every font, by its texture rectangle.
std::map<UvRect, AtlasGlyph> glyph_table(const ImFontAtlas& atlas) {
  std::map<UvRect, AtlasGlyph> table;
  for (const ImFont* font : atlas.Fonts) {
    for (const ImFontGlyph& g : font->Glyphs) {
      if (g.Visible) table.emplace(UvRect{g.U0, g.V0, g.U1, g.V1}, AtlasGlyph{&g, font->FontSize});
    }
  }
  return table;
}

// The glyph whose texture rectangle holds `uv`: the same rectangle, or (a glyph cut at its clip
// rectangle by ImGui's CPU clipping, whose texture coordinates were cut with it) one that contains it.
const AtlasGlyph* find_glyph(const std::map<UvRect, AtlasGlyph>& table, const UvRect& uv, bool& cut) {
  if (const auto it = table.find(uv); it != table.end()) {
    cut = false;
    return &it->second;
  }
  constexpr float eps = 1e-6f;
  for (const auto& [r, g] : table) {
    if (uv[0] >= r[0] - eps && uv[1] >= r[1] - eps && uv[2] <= r[2] + eps && uv[3] <= r[3] + eps) {
      cut = true;
      return &g;
    }
  }
  return nullptr;
}

// The part of a glyph's texture rectangle that a viewer sees: its texels at least a quarter covered
// (the rest is the rasterizer's margin and its faintest antialiasing). The whole rectangle where the
// atlas keeps no pixels.
UvRect ink_of(const ImFontAtlas& atlas, const ImFontGlyph& g) {
  const unsigned char* alpha = atlas.TexPixelsAlpha8;
  const int w = atlas.TexWidth, h = atlas.TexHeight;
  if (!alpha || w <= 0 || h <= 0) return {g.U0, g.V0, g.U1, g.V1};
  const int x0 = std::max(0, static_cast<int>(std::lround(g.U0 * static_cast<float>(w)))),
            y0 = std::max(0, static_cast<int>(std::lround(g.V0 * static_cast<float>(h))));
  const int x1 = std::min(w, static_cast<int>(std::lround(g.U1 * static_cast<float>(w)))),
            y1 = std::min(h, static_cast<int>(std::lround(g.V1 * static_cast<float>(h))));
  int ix0 = x1, iy0 = y1, ix1 = x0, iy1 = y0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x)
      if (alpha[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)] >= 64) {
        ix0 = std::min(ix0, x), ix1 = std::max(ix1, x + 1), iy0 = std::min(iy0, y), iy1 = std::max(iy1, y + 1);
      }
  if (ix0 >= ix1 || iy0 >= iy1) return {g.U0, g.V0, g.U0, g.V0};  // no ink
  const float fw = static_cast<float>(w), fh = static_cast<float>(h);
  return {static_cast<float>(ix0) / fw, static_cast<float>(iy0) / fh, static_cast<float>(ix1) / fw, static_cast<float>(iy1) / fh};
}

ImVec2 sub(ImVec2 a, ImVec2 b) { return ImVec2(a.x - b.x, a.y - b.y); }
float dot(ImVec2 a, ImVec2 b) { return a.x * b.x + a.y * b.y; }
float length(ImVec2 a) { return std::sqrt(dot(a, a)); }

// One glyph as drawn: where its pen stood (the line's top left before the glyph's own offsets), the
// direction of its line, its scale and its quad.
struct PlacedGlyph {
  const AtlasGlyph* atlas = nullptr;
  ImVec2 pen, along, down;  // along and down: unit vectors of the glyph's x and y axes
  float scale = 1;
  ImVec2 min, max;
  bool clipped = false;
  bool seen = true;  // some of it inside its clip rectangle (the scissor keeps it)
};

// The quad of vertices v[0..3] (ImFont::RenderText's order: top left, top right, bottom right,
// bottom left of the glyph) as a placed glyph, or nothing when it is not a glyph of the atlas.
std::optional<PlacedGlyph> place(const ImDrawVert* v, const std::map<UvRect, AtlasGlyph>& table, const ImFontAtlas& atlas,
                                 const ImVec4& clip) {
  if (v[1].uv.x != v[2].uv.x || v[1].uv.y != v[0].uv.y || v[3].uv.x != v[0].uv.x || v[3].uv.y != v[2].uv.y) return std::nullopt;
  bool cut = false;
  const AtlasGlyph* a = find_glyph(table, UvRect{v[0].uv.x, v[0].uv.y, v[2].uv.x, v[2].uv.y}, cut);
  if (!a) return std::nullopt;
  const ImFontGlyph& g = *a->glyph;
  const ImVec2 across = sub(v[1].pos, v[0].pos), downwards = sub(v[3].pos, v[0].pos);
  const float w = length(across), h = length(downwards);
  if (w <= 0 || h <= 0 || g.U1 <= g.U0 || g.V1 <= g.V0 || g.Y1 <= g.Y0) return std::nullopt;
  PlacedGlyph p;
  p.atlas = a;
  p.along = ImVec2(across.x / w, across.y / w);
  p.down = ImVec2(downwards.x / h, downwards.y / h);
  // The share of the glyph's texture the quad shows gives its size on screen, cut or not.
  const float shown_v = (v[2].uv.y - v[0].uv.y) / (g.V1 - g.V0);
  p.scale = shown_v > 0 ? h / shown_v / (g.Y1 - g.Y0) : 1;
  const float cut_left = (v[0].uv.x - g.U0) / (g.U1 - g.U0) * (g.X1 - g.X0) * p.scale;
  const float cut_top = (v[0].uv.y - g.V0) / (g.V1 - g.V0) * (g.Y1 - g.Y0) * p.scale;
  const float x_off = g.X0 * p.scale + cut_left, y_off = g.Y0 * p.scale + cut_top;
  p.pen = ImVec2(v[0].pos.x - p.along.x * x_off - p.down.x * y_off, v[0].pos.y - p.along.y * x_off - p.down.y * y_off);
  p.min = p.max = v[0].pos;
  for (int k = 1; k < 4; ++k) {
    p.min = ImVec2(std::min(p.min.x, v[k].pos.x), std::min(p.min.y, v[k].pos.y));
    p.max = ImVec2(std::max(p.max.x, v[k].pos.x), std::max(p.max.y, v[k].pos.y));
  }
  constexpr float slack = 0.5f;  // a pixel's rounding is no clipping
  p.seen = p.max.x > clip.x && p.max.y > clip.y && p.min.x < clip.z && p.min.y < clip.w;
  const bool past = p.min.x < clip.x - slack || p.min.y < clip.y - slack || p.max.x > clip.z + slack || p.max.y > clip.w + slack;
  if (!cut && !past) return p;
  // Cut or reaching past its clip rectangle: clipped where its ink is (a glyph's margin cut at a
  // panel's edge, a 'T' whose quad starts 0.8 px left of it, shows all a viewer sees of it).
  const UvRect ink = ink_of(atlas, g);
  if (ink[2] <= ink[0] || ink[3] <= ink[1]) return p;  // a glyph with no ink shows nothing to cut
  const float su0 = v[0].uv.x, sv0 = v[0].uv.y, su1 = v[2].uv.x, sv1 = v[2].uv.y;  // the part the quad shows
  const float texel_u = 0.5f / static_cast<float>(std::max(1, atlas.TexWidth)), texel_v = 0.5f / static_cast<float>(std::max(1, atlas.TexHeight));
  if (ink[0] < su0 - texel_u || ink[1] < sv0 - texel_v || ink[2] > su1 + texel_u || ink[3] > sv1 + texel_v) {
    p.clipped = true;  // ImGui cut some of its ink away
    return p;
  }
  // The ink's corners on screen: the quad maps its texture rectangle linearly (turned or not).
  const auto at = [&](float u, float t) {
    const float fu = (u - su0) / (su1 - su0), ft = (t - sv0) / (sv1 - sv0);
    return ImVec2(v[0].pos.x + across.x * fu + downwards.x * ft, v[0].pos.y + across.y * fu + downwards.y * ft);
  };
  ImVec2 lo(FLT_MAX, FLT_MAX), hi(-FLT_MAX, -FLT_MAX);
  for (const ImVec2 c : {at(ink[0], ink[1]), at(ink[2], ink[1]), at(ink[0], ink[3]), at(ink[2], ink[3])}) {
    lo = ImVec2(std::min(lo.x, c.x), std::min(lo.y, c.y));
    hi = ImVec2(std::max(hi.x, c.x), std::max(hi.y, c.y));
  }
  p.clipped = lo.x < clip.x - slack || lo.y < clip.y - slack || hi.x > clip.z + slack || hi.y > clip.w + slack;
  return p;
}

// Whether `next` goes on the run that `last` ends: the same direction and size, the same line, and
// its pen at most a font size past where `last`'s advance left it.
bool continues(const PlacedGlyph& last, const PlacedGlyph& next, float& gap) {
  const float px = last.atlas->font_size * last.scale;
  if (dot(last.along, next.along) < 0.99f || std::abs(next.atlas->font_size * next.scale - px) > 0.01f * px) return false;
  const ImVec2 d = sub(next.pen, last.pen);
  if (std::abs(dot(d, last.down)) > 0.5f) return false;
  gap = dot(d, last.along) - last.atlas->glyph->AdvanceX * last.scale;
  return gap > -0.5f && gap < px;
}

void append(DrawnText& run, const PlacedGlyph& g) {
  append_utf8(run.text, g.atlas->glyph->Codepoint);
  run.min = ImVec2(std::min(run.min.x, g.min.x), std::min(run.min.y, g.min.y));
  run.max = ImVec2(std::max(run.max.x, g.max.x), std::max(run.max.y, g.max.y));
  run.clipped = run.clipped || g.clipped;
}

// The glyph quads of one draw command, in the order drawn (a quad is 6 indices over 4 vertices,
// 0 1 2 0 2 3; other primitives are passed over a triangle at a time).
void read_command(const ImDrawList& list, const ImDrawCmd& cmd, const std::map<UvRect, AtlasGlyph>& table, const ImFontAtlas& atlas,
                  std::vector<DrawnText>& out) {
  const ImDrawIdx* idx = list.IdxBuffer.Data + cmd.IdxOffset;
  const ImDrawVert* vtx = list.VtxBuffer.Data + cmd.VtxOffset;
  std::optional<PlacedGlyph> last;
  const size_t first = out.size();
  std::vector<bool> seen;  // of each run this command adds: whether any of its glyphs is seen
  for (unsigned k = 0; k + 3 <= cmd.ElemCount;) {
    const unsigned i0 = idx[k];
    const bool quad = k + 6 <= cmd.ElemCount && idx[k + 1] == i0 + 1 && idx[k + 2] == i0 + 2 && idx[k + 3] == i0 &&
                      idx[k + 4] == i0 + 2 && idx[k + 5] == i0 + 3 && i0 + 4 <= static_cast<unsigned>(list.VtxBuffer.Size);
    std::optional<PlacedGlyph> g = quad ? place(vtx + i0, table, atlas, cmd.ClipRect) : std::nullopt;
    k += quad ? 6 : 3;
    if (!g) continue;
    float gap = 0;
    if (last && continues(*last, *g, gap)) {
      if (gap > 0.2f * g->atlas->font_size * g->scale) out.back().text += ' ';
    } else {
      DrawnText run;
      run.min = g->min;
      run.max = g->max;
      // The size the text was drawn at, to a hundredth of a pixel (the scale is read back from floats).
      run.px = std::round(g->atlas->font_size * g->scale * 100) / 100;
      run.line_top = dot(g->pen, g->down);
      run.upright = g->along.y < -0.5f;
      run.list = &list;
      out.push_back(std::move(run));
      seen.push_back(false);
    }
    append(out.back(), *g);
    seen.back() = seen.back() || g->seen;
    last = g;
  }
  // A run none of whose glyphs is seen was not drawn for anyone (a line the scissor drops whole);
  // a glyph of a seen line that lies wholly outside (an underscore below the edge) cuts its line.
  size_t kept = first;
  for (size_t r = first; r < out.size(); ++r)
    if (seen[r - first]) {
      if (kept != r) out[kept] = std::move(out[r]);
      ++kept;
    }
  out.resize(kept);
}

}  // namespace

std::vector<DrawnText> drawn_texts(const ImDrawData& data, const ImFontAtlas& atlas) {
  return drawn_texts(std::vector<const ImDrawList*>(data.CmdLists, data.CmdLists + data.CmdListsCount), atlas);
}

std::vector<DrawnText> drawn_texts(const std::vector<const ImDrawList*>& lists, const ImFontAtlas& atlas) {
  const std::map<UvRect, AtlasGlyph> table = glyph_table(atlas);
  std::vector<DrawnText> out;
  for (const ImDrawList* l : lists) {
    const ImDrawList& list = *l;
    for (const ImDrawCmd& cmd : list.CmdBuffer) {
      if (cmd.UserCallback || cmd.ElemCount == 0 || cmd.TextureId != atlas.TexID) continue;
      read_command(list, cmd, table, atlas, out);
    }
  }
  return out;
}

}  // namespace attnlab::gui
