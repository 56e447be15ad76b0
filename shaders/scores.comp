#version 430
// scores S = Q Kᵀ for one chunk of query rows against one chunk of keys. Register-blocked: each
// invocation computes an 8 × 8 tile of S (tile_dot.glsl: from its own texel fetches, or from
// rows its workgroup staged in shared memory).
// Q (q_tex): rows × dk_vec4 texels (d_k zero-padded to a multiple of 4); K (k_tex): keys ×
// dk_vec4 texels; S: rows × s_stride floats, this key chunk starting at vec4 column s_col.
layout(local_size_x = 8, local_size_y = 8) in;

uniform samplerBuffer q_tex;
uniform samplerBuffer k_tex;
layout(std430, binding = 2) writeonly buffer SBuffer { float s[]; };

uniform uint rows;
uniform uint keys;
uniform uint dk_vec4;
uniform uint s_stride;
uniform uint s_col;

#include "tile_dot.glsl"

void main() {
  const uint k0 = gl_GlobalInvocationID.x * TILE;  // first key of the tile
  const uint r0 = gl_GlobalInvocationID.y * TILE;  // first query row of the tile
  vec4 acc[8][2];
  tile_products(q_tex, rows, dk_vec4, 0u, k_tex, keys, dk_vec4, dk_vec4, acc);
  if (k0 >= keys || r0 >= rows) return;
  for (uint r = 0u; r < TILE && r0 + r < rows; ++r) {
    const uint base = (r0 + r) * s_stride + s_col * 4u + k0;
    for (uint c = 0u; c < TILE; ++c) {
      if (k0 + c < keys) s[base + c] = acc[r][c / 4u][c % 4u];
    }
  }
}
