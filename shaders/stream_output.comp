#version 430
// Streaming, step 3 of each key tile: O ← α·O + P V for the chunk's query rows, where P is this
// tile's exp((s − M')·c) (stream_update.comp) and α the rescale of each row's earlier sums to the
// new frame. The same 8 × 8 register-blocked dot products as output.comp (tile_dot.glsl).
// P (p_tex): rows × p_stride texels. Vᵀ (vt_tex): dv_vec4·4 rows × keys_vec4 texels (this tile,
// zero-padded). O: rows × dv_vec4 vec4, zero before the first tile.
#include "streaming_common.glsl"

uniform samplerBuffer p_tex;
uniform samplerBuffer vt_tex;
layout(std430, binding = 2) buffer OBuffer { vec4 o[]; };
layout(std430, binding = 3) readonly buffer RowFloats { float floats[]; };

uniform uint rows;
uniform uint keys_vec4;
uniform uint dv_vec4;
uniform uint p_stride;  // texels per row of P

#include "tile_dot.glsl"

layout(local_size_x = TILE_GROUP, local_size_y = TILE_GROUP_Y) in;

void main() {
  const uint columns = dv_vec4 * 4u;
  vec4 acc[TILE_ROWS][2];
  tile_products(p_tex, rows, p_stride, 0u, vt_tex, columns, keys_vec4, keys_vec4, acc);
  for (uint r = 0u; r < TILE_ROWS; ++r) {
    const uint row = tile_row(r);
    if (row >= rows) continue;
    const float alpha = floats[row * FLOATS_PER_ROW + ROW_ALPHA];
    for (uint h = 0u; h < 2u; ++h) {
      const uint c4 = tile_col(h) / 4u;
      if (c4 >= dv_vec4) continue;
      const uint at = row * dv_vec4 + c4;
      o[at] = alpha * o[at] + acc[r][h];
    }
  }
}
