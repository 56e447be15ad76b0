// Heatmap render pass: looks one matrix cell up per pixel and maps it through a 256-entry
// colormap, the same table and the same position rule as engine/colormap.hpp, so the screen and
// exported figures agree. Blocked cells (stored as a huge sentinel) are hatched, never coloured.
#version 330 core
in vec2 v_uv;
out vec4 frag_color;

uniform sampler2D u_values;   // R32F, cols × rows texels, texel (j, i) = matrix(i, j)
uniform sampler2D u_lut;      // RGBA8, 256 × 1
uniform vec4 u_view;          // visible part of the matrix: x0, y0, x1, y1 in [0, 1]
uniform vec2 u_cells;         // cols, rows
uniform vec2 u_target;        // target size in pixels
uniform float u_lo;
uniform float u_hi;
uniform int u_diverging;      // 1: centred at 0, t = 0.5 + 0.5·v / max(|lo|, |hi|)
uniform vec3 u_hatch_a;
uniform vec3 u_hatch_b;

const float kBlocked = 1.0e30;

void main() {
  // v_uv.y = 0 is the first texture row, which ImGui shows at the top of the image.
  vec2 m = mix(u_view.xy, u_view.zw, v_uv);
  ivec2 cell = ivec2(clamp(floor(m * u_cells), vec2(0.0), u_cells - 1.0));
  float v = texelFetch(u_values, cell, 0).r;
  if (v >= kBlocked) {
    float s = mod(gl_FragCoord.x + gl_FragCoord.y, 8.0);
    frag_color = vec4(s < 3.0 ? u_hatch_a : u_hatch_b, 1.0);
    return;
  }
  float t;
  if (u_diverging == 1) {
    float r = max(abs(u_lo), abs(u_hi));
    t = r > 0.0 ? 0.5 + 0.5 * v / r : 0.5;
  } else {
    t = u_hi > u_lo ? (v - u_lo) / (u_hi - u_lo) : 0.5;
  }
  t = clamp(t, 0.0, 1.0);
  int k = int(floor(t * 255.0 + 0.5));
  vec3 c = texelFetch(u_lut, ivec2(k, 0), 0).rgb;
  // Thin separators once cells are big enough to tell apart.
  vec2 cell_px = u_target / ((u_view.zw - u_view.xy) * u_cells);
  if (min(cell_px.x, cell_px.y) >= 10.0) {
    vec2 f = fract(m * u_cells) * cell_px;
    if (f.x < 1.0 || f.y < 1.0) c *= 0.75;
  }
  frag_color = vec4(c, 1.0);
}
