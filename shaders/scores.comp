#version 430
// scores S = Q Kᵀ for one chunk of query rows against one chunk of keys. Register-blocked: each
// invocation computes an 8 × 8 tile of S from vec4 texel fetches, with no shared memory (see
// tile_dot.glsl for why textures and why 8 × 8 on llvmpipe; on GPUs it keeps the FMA units busy).
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
  if (k0 >= keys || r0 >= rows) return;
  uint a_first[8], b_first[8];
  for (uint t = 0u; t < TILE; ++t) {
    a_first[t] = min(r0 + t, rows - 1u) * dk_vec4;
    b_first[t] = min(k0 + t, keys - 1u) * dk_vec4;
  }
  vec4 acc[8][2];
  tile_dot(q_tex, a_first, k_tex, b_first, dk_vec4, acc);
  for (uint r = 0u; r < TILE && r0 + r < rows; ++r) {
    const uint base = (r0 + r) * s_stride + s_col * 4u + k0;
    for (uint c = 0u; c < TILE; ++c) {
      if (k0 + c < keys) s[base + c] = acc[r][c / 4u][c % 4u];
    }
  }
}
