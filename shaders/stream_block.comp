#version 430
// Streaming as FlashAttention-2 decomposes it (the hardware GPUs' kernel; llvmpipe keeps the
// per-row kernels, stream_update.comp): a workgroup per block of BLOCK_ROWS query rows walks the
// keys its rows may see in tiles of BLOCK_KEYS. Each tile of K and V is staged in shared memory
// once and read by every row of the block; each invocation keeps its row's query, output
// accumulator and online-softmax state (online_tile.glsl) in registers across the whole key loop,
// and writes them once at the end. Where every score's statistics come from the Gram matrices
// (`skip`), the tiles no row of the block can see are never visited (a causal mask's upper
// triangle). The blocks are taken last first: under a causal mask the last rows see the most keys,
// and a card that starts them first is not left waiting on them at the end.
//
// Compile-time sizes (the host's #defines, engine/gpu/gpu_streaming.cpp): DK4 and DV4, texels
// (vec4) per row of Q and K and of V; BLOCK_ROWS, rows per workgroup; BLOCK_KEYS, keys per tile
// (shared memory: BLOCK_KEYS·(DK4 + DV4) vec4 and BLOCK_ROWS·(BLOCK_KEYS + 1) floats).
// Q (q_tex): the chunk's rows × DK4 texels; K (k_tex): m × DK4; V (v_tex): m × DV4. O: the chunk's
// rows × DV4 vec4, O = Σ p·v in the frame of the row's final maximum (the host divides by z).
layout(local_size_x = BLOCK_ROWS) in;

#include "attention_common.glsl"
#include "streaming_common.glsl"

// The query and the accumulator must stay in registers: every loop over them has constant
// bounds, and NVIDIA's compiler is asked to unroll them all (other compilers ignore the pragma).
#pragma optionNV(unroll all)

uniform samplerBuffer q_tex;
uniform samplerBuffer k_tex;
uniform samplerBuffer v_tex;
layout(std430, binding = 0) writeonly buffer OBuffer { vec4 o_out[]; };
layout(std430, binding = 1) buffer RowSums { double sums[]; };
layout(std430, binding = 2) buffer RowFloats { float floats[]; };
layout(std430, binding = 3) buffer RowFlags { uint flags[]; };
layout(std430, binding = 4) readonly buffer CustomMask { uint custom_words[]; };  // chunk rows × m bytes
layout(std430, binding = 5) buffer HeatSum { float hsum[]; };     // chunk rows × hcols (stream_heat.comp's)
layout(std430, binding = 6) buffer HeatMax { float hmax[]; };
layout(std430, binding = 7) buffer HeatFrame { float frame[]; };

uniform uint rows;        // query rows in this chunk
uniform uint row0;        // global index of the chunk's first row
uniform uint m;           // keys
uniform uint mask_kind;
uniform uint mask_param;
uniform float c;          // 1/(s·T)
uniform uint skip;        // 1: only the keys the block's rows may see (every score's moments come from elsewhere)
uniform uint hcols;       // heatmap pixel columns, 0 for no heatmap

shared vec4 k_tile[BLOCK_KEYS * DK4];
shared vec4 v_tile[BLOCK_KEYS * DV4];
// Each row's scores, then its p, at this tile's keys; the row stride is BLOCK_KEYS + 1 floats, so
// that the rows of a warp reading one key fall in different banks.
const uint S_STRIDE = BLOCK_KEYS + 1u;
shared float s_tile[BLOCK_ROWS * S_STRIDE];

uint key0;  // global index of the tile's first key

#include "chunk_mask.glsl"

float tile_score(uint row, uint j) { return s_tile[gl_LocalInvocationID.x * S_STRIDE + j]; }
bool tile_blocked(uint row, uint j) { return blocked(row, key0 + j); }
void tile_store_p(uint row, uint j, float p) { s_tile[gl_LocalInvocationID.x * S_STRIDE + j] = p; }

#include "online_tile.glsl"

// Adds the tile's p of heatmap pixel px (the sum and max of a run of its keys) into the row's pixel,
// brought to the frame M as stream_heat.comp does.
void add_to_pixel(uint row, uint px, float sum, float mx, float M) {
  const uint at = row * hcols + px;
  const float f = frame[at];
  float hs = hsum[at], hm = hmax[at];
  if (f != M) {
    const float scale = f == NEG_INF ? 0.0 : exp((f - M) * c);
    hs *= scale;
    hm *= scale;
    frame[at] = M;
  }
  hsum[at] = hs + sum;
  hmax[at] = max(hm, mx);
}

// The tile's p of the row into its heatmap pixels, a run of keys per pixel.
void add_tile_to_heatmap(uint row, uint keys, float M) {
  uint px = pixel_of(key0, m, hcols);
  float sum = 0.0, mx = 0.0;
  for (uint j = 0u; j < keys; ++j) {
    const uint at = pixel_of(key0 + j, m, hcols);
    if (at != px) {
      add_to_pixel(row, px, sum, mx, M);
      px = at;
      sum = 0.0;
      mx = 0.0;
    }
    const float p = s_tile[gl_LocalInvocationID.x * S_STRIDE + j];
    sum += p;
    mx = max(mx, p);
  }
  add_to_pixel(row, px, sum, mx, M);
}

void main() {
  const uint lid = gl_LocalInvocationID.x;
  const uint block = gl_NumWorkGroups.x - 1u - gl_WorkGroupID.x;  // last first
  const uint row = block * BLOCK_ROWS + lid;
  const bool in_chunk = row < rows;

  // The keys the block visits (uniform across the workgroup: its barriers need every invocation).
  uint key_begin = 0u, key_end = m;
  if (skip != 0u) {
    const uint first_row = row0 + block * BLOCK_ROWS, last_row = row0 + min(rows, block * BLOCK_ROWS + BLOCK_ROWS) - 1u;
    key_begin = visible_keys(mask_kind, mask_param, first_row, m).x;
    key_end = max(key_begin, visible_keys(mask_kind, mask_param, last_row, m).y);
  }

  vec4 q[DK4];
  vec4 o[DV4];
  for (uint i = 0u; i < DK4; ++i) q[i] = in_chunk ? texelFetch(q_tex, int(row * DK4 + i)) : vec4(0.0);
  for (uint i = 0u; i < DV4; ++i) o[i] = vec4(0.0);
  RowState r = row_state_start();

  for (key0 = key_begin; key0 < key_end; key0 += BLOCK_KEYS) {
    const uint keys = min(BLOCK_KEYS, key_end - key0);
    barrier();  // the last tile's reads of shared memory are done
    for (uint t = lid; t < BLOCK_KEYS * DK4; t += BLOCK_ROWS) {
      const uint j = t / DK4;
      k_tile[t] = j < keys ? texelFetch(k_tex, int((key0 + j) * DK4 + t % DK4)) : vec4(0.0);
    }
    for (uint t = lid; t < BLOCK_KEYS * DV4; t += BLOCK_ROWS) {
      const uint j = t / DV4;
      v_tile[t] = j < keys ? texelFetch(v_tex, int((key0 + j) * DV4 + t % DV4)) : vec4(0.0);
    }
    barrier();
    if (!in_chunk) continue;

    // The row's scores at the tile's keys (zero past `keys`, whose K is zero).
    for (uint j = 0u; j < BLOCK_KEYS; ++j) {
      float s = 0.0;
      for (uint i = 0u; i < DK4; ++i) s += dot(q[i], k_tile[j * DK4 + i]);
      s_tile[lid * S_STRIDE + j] = s;
    }
    const float alpha = online_tile(r, row, keys, c, skip == 0u);
    if (alpha != 1.0) {
      for (uint i = 0u; i < DV4; ++i) o[i] *= alpha;
    }
    // O += P V over the tile (p is 0 at blocked keys, and V is zero past `keys`).
    for (uint j = 0u; j < keys; ++j) {
      const float p = s_tile[lid * S_STRIDE + j];
      for (uint i = 0u; i < DV4; ++i) o[i] += p * v_tile[j * DV4 + i];
    }
    if (hcols != 0u && r.M != NEG_INF) add_tile_to_heatmap(row, keys, r.M);
  }

  if (!in_chunk) return;
  for (uint i = 0u; i < DV4; ++i) o_out[row * DV4 + i] = o[i];
  store_row_state(r, row);
}
