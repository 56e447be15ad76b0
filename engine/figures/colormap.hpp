// Colormaps shared by the GUI (uploaded as a 256-entry lookup texture) and the figure writers,
// so the same number gets the same colour on screen and in an exported file.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

struct Rgb {
  std::uint8_t r = 0, g = 0, b = 0;
  friend bool operator==(const Rgb&, const Rgb&) = default;
};

enum class ColormapKind { Sequential, Diverging };

struct Colormap {
  std::string name;  // "viridis", "magma", "inferno", "plasma", "cividis", "grays", "blue-white-red", ...
  ColormapKind kind = ColormapKind::Sequential;
  bool colorblind_safe = false;
  std::array<Rgb, 256> table{};  // table[0] = low end, table[255] = high end

  // Colour for t in [0, 1] (clamped): the nearest of the 256 entries, identical in GUI and files.
  Rgb at(double t) const;
};

// Every built-in colormap, sequential ones first.
const std::vector<Colormap>& colormaps();
// Looks a colormap up by name; throws InputError listing the names when there is none.
const Colormap& colormap(std::string_view name);
// The defaults: a sequential map for weights and saturation, a diverging one for signed stages.
inline constexpr const char* kDefaultSequential = "viridis";
inline constexpr const char* kDefaultDiverging = "blue-white-red";

// Maps value v in [lo, hi] to t in [0, 1]. A diverging map is centred at 0: with
// lo < 0 < hi, t = 0.5 + 0.5·v/max(|lo|, |hi|). Non-finite v gives t = NaN (blocked cell).
double colormap_position(const Colormap& map, double v, double lo, double hi);

}  // namespace attnlab
