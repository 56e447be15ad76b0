#version 430
// output O = A V for one chunk of query rows and one chunk of keys, accumulated over key chunks.
// Computed as A (Vᵀ)ᵀ, so it is the same register-blocked 8 × 8 tile of dot products as scores.comp
// (tile_dot.glsl): each invocation computes 8 query rows × 8 value columns.
// A (w_tex, the weights): rows × w_stride texels, this key chunk starting at texel w_col; padding
// columns hold 0. Vᵀ (vt_tex): dv_vec4·4 rows × keys_vec4 texels (this key chunk, zero-padded).
// O: rows × dv_vec4 vec4.
uniform samplerBuffer w_tex;
uniform samplerBuffer vt_tex;
layout(std430, binding = 2) buffer OBuffer { vec4 o[]; };

uniform uint rows;
uniform uint keys_vec4;   // keys in this chunk / 4 (padded)
uniform uint dv_vec4;
uniform uint w_stride;
uniform uint w_col;
uniform uint accumulate;  // 1: add to what earlier key chunks wrote

#include "tile_dot.glsl"

layout(local_size_x = TILE_GROUP, local_size_y = TILE_GROUP_Y) in;

void main() {
  const uint columns = dv_vec4 * 4u;
  vec4 acc[TILE_ROWS][2];
  tile_products(w_tex, rows, w_stride, w_col, vt_tex, columns, keys_vec4, keys_vec4, acc);
  for (uint r = 0u; r < TILE_ROWS; ++r) {
    const uint row = tile_row(r);
    if (row >= rows) continue;
    for (uint h = 0u; h < 2u; ++h) {
      const uint c4 = tile_col(h) / 4u;
      if (c4 >= dv_vec4) continue;
      const uint at = row * dv_vec4 + c4;
      o[at] = accumulate != 0u ? o[at] + acc[r][h] : acc[r][h];
    }
  }
}
