#version 430
// scores S = Q Kᵀ for one chunk of query rows against one chunk of keys. Register-blocked: each
// invocation computes an 8 × 8 tile of S (tile_dot.glsl: from its own texel fetches, or from
// rows its workgroup staged in shared memory).
// Q (q_tex): rows × dk_vec4 texels (d_k zero-padded to a multiple of 4); K (k_tex): keys ×
// dk_vec4 texels; S: rows × s_stride floats, this key chunk starting at vec4 column s_col.
uniform samplerBuffer q_tex;
uniform samplerBuffer k_tex;
layout(std430, binding = 2) writeonly buffer SBuffer { float s[]; };

uniform uint rows;
uniform uint keys;
uniform uint dk_vec4;
uniform uint s_stride;
uniform uint s_col;

#include "tile_dot.glsl"

layout(local_size_x = TILE_GROUP, local_size_y = TILE_GROUP_Y) in;

void main() {
  vec4 acc[TILE_ROWS][2];
  tile_products(q_tex, rows, dk_vec4, 0u, k_tex, keys, dk_vec4, dk_vec4, acc);
  for (uint r = 0u; r < TILE_ROWS; ++r) {
    const uint row = tile_row(r);
    if (row >= rows) continue;
    for (uint h = 0u; h < 2u; ++h) {
      const uint key = tile_col(h);  // first of the four
      const uint base = row * s_stride + s_col * 4u + key;
      for (uint c = 0u; c < 4u; ++c) {
        if (key + c < keys) s[base + c] = acc[r][h][c];
      }
    }
  }
}
