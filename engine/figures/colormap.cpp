// Colormap tables: parsed once from assets/colormaps/*.txt (embedded at build time; see
// tools/gen_colormaps.py for where the numbers come from) and looked up by name.
#include "engine/figures/colormap.hpp"

#include "engine/attention/matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace attnlab_colormaps {
const std::map<std::string, std::string_view>& files();
}

namespace attnlab {

namespace {

struct MapSpec {
  const char* name;
  ColormapKind kind;
  bool colorblind_safe;
};

// Order of the list shown to users: sequential first. Every map here is readable with the
// common colour-vision deficiencies (viridis family by design, cividis optimized for it, the
// two ColorBrewer diverging maps are marked colour-blind safe by ColorBrewer, grays trivially).
constexpr MapSpec kSpecs[] = {
    {"viridis", ColormapKind::Sequential, true},
    {"magma", ColormapKind::Sequential, true},
    {"inferno", ColormapKind::Sequential, true},
    {"plasma", ColormapKind::Sequential, true},
    {"cividis", ColormapKind::Sequential, true},
    {"grays", ColormapKind::Sequential, true},
    {"blue-white-red", ColormapKind::Diverging, true},
    {"purple-white-orange", ColormapKind::Diverging, true},
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A broken table is a build defect, not user input: fail loudly with the file name.
std::array<Rgb, 256> parse_table(std::string_view text, const std::string& file) {
  std::array<Rgb, 256> table{};
  size_t count = 0, pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    if (line.size() != 6 || count >= table.size()) {
      throw std::logic_error("embedded colormap " + file + " is malformed");
    }
    std::uint8_t bytes[3];
    for (int k = 0; k < 3; ++k) {
      const int hi = hex_digit(line[2 * k]), lo = hex_digit(line[2 * k + 1]);
      if (hi < 0 || lo < 0) throw std::logic_error("embedded colormap " + file + " is malformed");
      bytes[k] = static_cast<std::uint8_t>(hi * 16 + lo);
    }
    table[count++] = Rgb{bytes[0], bytes[1], bytes[2]};
  }
  if (count != table.size()) throw std::logic_error("embedded colormap " + file + " has not 256 entries");
  return table;
}

std::vector<Colormap> build_colormaps() {
  const auto& files = attnlab_colormaps::files();
  std::vector<Colormap> maps;
  for (const auto& spec : kSpecs) {
    const std::string file = std::string(spec.name) + ".txt";
    const auto it = files.find(file);
    if (it == files.end()) throw std::logic_error("colormap " + file + " is not embedded");
    Colormap map;
    map.name = spec.name;
    map.kind = spec.kind;
    map.colorblind_safe = spec.colorblind_safe;
    map.table = parse_table(it->second, file);
    maps.push_back(std::move(map));
  }
  return maps;
}

}  // namespace

Rgb Colormap::at(double t) const {
  // NaN (a blocked cell) has no colour of its own; callers draw blocked cells differently, and
  // the low end keeps this total.
  if (!(t > 0)) return table.front();
  if (t >= 1) return table.back();
  return table[static_cast<size_t>(std::lround(t * 255.0))];
}

const std::vector<Colormap>& colormaps() {
  // Built once and never changed: immutable shared data, not state.
  static const std::vector<Colormap> maps = build_colormaps();
  return maps;
}

const Colormap& colormap(std::string_view name) {
  for (const auto& map : colormaps()) {
    if (map.name == name) return map;
  }
  std::string names;
  for (const auto& map : colormaps()) names += (names.empty() ? "" : ", ") + map.name;
  throw InputError("--colormap: unknown colormap '" + std::string(name) + "'; expected one of " + names);
}

double colormap_position(const Colormap& map, double v, double lo, double hi) {
  if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
  double t = 0.5;
  if (map.kind == ColormapKind::Diverging) {
    // Centred at 0 whatever the range, so white always means zero and equal magnitudes get
    // equally strong colours on both sides.
    const double reach = std::max(std::abs(lo), std::abs(hi));
    if (reach > 0 && std::isfinite(reach)) t = 0.5 + 0.5 * v / reach;
  } else if (hi > lo) {
    t = (v - lo) / (hi - lo);
  }
  return std::clamp(t, 0.0, 1.0);
}

}  // namespace attnlab
