// Big heatmaps as GL textures: the matrix is uploaded once per result as a float texture and a
// fragment shader (shaders/heatmap.frag) applies the colormap into a texture ImGui shows, so an
// n = m = 1024 heatmap costs one textured quad per frame instead of a million rectangles.
#pragma once

#include "engine/figures/colormap.hpp"
#include "engine/attention/matrix.hpp"

#include <imgui.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace attnlab::gui {

// Pan/zoom of one big heatmap (drawn as a GL texture): the visible part of the matrix in
// matrix-relative coordinates, [x0, x1] × [y0, y1] ⊆ [0, 1]².
struct HeatmapView {
  float x0 = 0, y0 = 0, x1 = 1, y1 = 1;
};

// What one heatmap texture shows; the texture is redrawn only when this changes.
struct HeatmapRequest {
  const Matrix* values = nullptr;      // rows × cols
  const BlockGrid* blocked = nullptr;  // rows × cols, or null: nothing blocked
  std::uint64_t version = 0;           // changes whenever *values or *blocked change
  const Colormap* map = nullptr;
  double lo = 0, hi = 1;
  bool diverging = false;
  HeatmapView view;
  int width = 1, height = 1;  // target size in pixels
  Rgb hatch_a{60, 60, 60}, hatch_b{200, 200, 200};
};

class HeatmapRenderer {
public:
  // Needs a current GL 3.3+ context (OpenGL ES 3.0 when `gles`: WebGL2). Throws std::runtime_error
  // naming the shader and the driver's log when the heatmap shaders do not compile or link.
  explicit HeatmapRenderer(bool gles);
  ~HeatmapRenderer();  // not copyable: it owns GL objects (impl_)

  // The texture for heatmap `slot` (one per on-screen heatmap: its ImGui ID) showing the request.
  ImTextureID render(ImGuiID slot, const HeatmapRequest& request);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace attnlab::gui
