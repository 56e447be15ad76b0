#version 430
// Streaming, step 2 of each key tile (the per-row kernels, llvmpipe's): the online softmax of one
// tile of scores (online_tile.glsl). One invocation per query row (no barriers: on llvmpipe each
// barrier suspends every invocation of the group, which cost more than the row's arithmetic; each
// lane walks its own row), its state read from and written back to the row buffers; p into P (0
// for blocked cells and the padding columns), and α kept for stream_output.comp and the heatmap.
// S, P: rows × stride floats (this tile's keys first, then padding up to stride).
layout(local_size_x = 64) in;

#include "attention_common.glsl"
#include "streaming_common.glsl"

uniform samplerBuffer s_tex;  // S as one float per texel (reads gather; see tile_dot.glsl)
layout(std430, binding = 1) writeonly buffer PBuffer { float p_out[]; };
layout(std430, binding = 2) buffer RowSums { double sums[]; };
layout(std430, binding = 3) buffer RowFloats { float floats[]; };
layout(std430, binding = 4) buffer RowFlags { uint flags[]; };
layout(std430, binding = 5) readonly buffer CustomMask { uint custom_words[]; };  // chunk rows × m bytes

uniform uint keys;        // keys in this tile
uniform uint stride;      // floats per row of S and P
uniform uint key0;        // global index of the tile's first key
uniform uint row0;        // global index of the chunk's first row
uniform uint m;           // all keys (custom mask rows)
uniform uint mask_kind;
uniform uint mask_param;
uniform float c;          // 1/(s·T)
uniform uint rows;        // query rows in this chunk
uniform uint all_scores;  // 1: every score's moments too (not when the Gram matrices give them)

#include "chunk_mask.glsl"

float tile_score(uint row, uint j) { return texelFetch(s_tex, int(row * stride + j)).x; }
bool tile_blocked(uint row, uint j) { return blocked(row, key0 + j); }
void tile_store_p(uint row, uint j, float p) { p_out[row * stride + j] = p; }

#include "online_tile.glsl"

void main() {
  const uint row = gl_GlobalInvocationID.x;
  if (row >= rows) return;
  RowState r = load_row_state(row);
  const float alpha = online_tile(r, row, keys, c, all_scores != 0u);
  for (uint j = keys; j < stride; ++j) p_out[row * stride + j] = 0.0;
  store_row_state(r, row);
  floats[row * FLOATS_PER_ROW + ROW_ALPHA] = alpha;
}
