// Register-blocked dot products shared by scores.comp (S = Q Kᵀ), output.comp (O = A V, read as
// A (Vᵀ)ᵀ) and stream_output.comp: with a workgroup of 8 × 8 invocations, the invocation at
// (x, y) computes the 8 × 8 tile acc[r][h][c] = Σ_d a_(8y+r) · b_(8x+4h+c) of its workgroup's 64 × 64
// block, over rows of vec4 texels read through buffer textures. Every invocation must call
// tile_products, also those whose tile lies past the last row or column (their results are
// simply not stored): the shared-memory variant needs the whole workgroup at its barriers.
//
// Two ways to reach the operands (docs/PERFORMANCE.md, "The GPU backend on llvmpipe"):
// - by default, each invocation fetches its own eight rows of each operand (texelFetch). llvmpipe
//   runs every invocation of a SIMD group in lockstep and turns each storage-buffer load into a
//   loop over the lanes, while a texel fetch becomes one vector gather; with eight rows and eight
//   keys per invocation each fetched texel feeds eight dot products (2.5-3.5× the first kernel);
// - with TILE_SHARED defined, the workgroup stages its 64 rows of each operand in shared memory,
//   16 dimensions at a time: a GPU then reads each texel once per workgroup instead of eight
//   times, and every step is eight multiply-adds per value read from shared memory. llvmpipe
//   suspends the whole group at every barrier, so there it is 3× slower (bench --gpu-tiles).

const uint TILE = 8u;  // rows and columns of the tile each invocation computes

#ifdef TILE_SHARED

// [dimension within the slice][row / 4 of the block]: an invocation's eight rows are two vec4.
shared vec4 a_slice[16][16];
shared vec4 b_slice[16][16];

// Row i of A starts at texel min(i, a_rows − 1)·a_stride + a_offset, row j of B at
// min(j, b_rows − 1)·b_stride; len texels each (rows past the end repeat the last one).
void tile_products(samplerBuffer a_tex, uint a_rows, uint a_stride, uint a_offset, samplerBuffer b_tex, uint b_rows,
                   uint b_stride, uint len, out vec4 acc[8][2]) {
  for (int r = 0; r < 8; ++r) {
    acc[r][0] = vec4(0.0);
    acc[r][1] = vec4(0.0);
  }
  // Each invocation stages four texels of each operand per slice: at step t, texel li % 4 of row
  // 16t + li / 4 of the block, so that neighbouring invocations read neighbouring texels.
  const uint li = gl_LocalInvocationIndex, texel = li & 3u;
  uint a_load[4], b_load[4];
  for (uint t = 0u; t < 4u; ++t) {
    const uint row = 16u * t + (li >> 2u);
    a_load[t] = min(gl_WorkGroupID.y * 64u + row, a_rows - 1u) * a_stride + a_offset + texel;
    b_load[t] = min(gl_WorkGroupID.x * 64u + row, b_rows - 1u) * b_stride + texel;
  }
  const uint ly = gl_LocalInvocationID.y, lx = gl_LocalInvocationID.x;
  for (uint d0 = 0u; d0 < len; d0 += 4u) {
    const bool inside = d0 + texel < len;
    for (uint t = 0u; t < 4u; ++t) {
      const vec4 x = inside ? texelFetch(a_tex, int(a_load[t] + d0)) : vec4(0.0);
      const vec4 y = inside ? texelFetch(b_tex, int(b_load[t] + d0)) : vec4(0.0);
      const uint row = 16u * t + (li >> 2u);
      for (uint c = 0u; c < 4u; ++c) {
        a_slice[4u * texel + c][row >> 2u][row & 3u] = x[c];
        b_slice[4u * texel + c][row >> 2u][row & 3u] = y[c];
      }
    }
    barrier();
    for (uint d = 0u; d < 16u; ++d) {
      const vec4 a0 = a_slice[d][2u * ly], a1 = a_slice[d][2u * ly + 1u];
      const vec4 b0 = b_slice[d][2u * lx], b1 = b_slice[d][2u * lx + 1u];
      for (int r = 0; r < 4; ++r) {
        acc[r][0] = fma(vec4(a0[r]), b0, acc[r][0]);
        acc[r][1] = fma(vec4(a0[r]), b1, acc[r][1]);
        acc[r + 4][0] = fma(vec4(a1[r]), b0, acc[r + 4][0]);
        acc[r + 4][1] = fma(vec4(a1[r]), b1, acc[r + 4][1]);
      }
    }
    barrier();
  }
}

#else

void tile_products(samplerBuffer a_tex, uint a_rows, uint a_stride, uint a_offset, samplerBuffer b_tex, uint b_rows,
                   uint b_stride, uint len, out vec4 acc[8][2]) {
  for (int r = 0; r < 8; ++r) {
    acc[r][0] = vec4(0.0);
    acc[r][1] = vec4(0.0);
  }
  const uint r0 = gl_GlobalInvocationID.y * TILE, c0 = gl_GlobalInvocationID.x * TILE;
  if (r0 >= a_rows || c0 >= b_rows) return;  // nothing of this tile is stored
  uint a_first[8], b_first[8];
  for (uint t = 0u; t < TILE; ++t) {
    a_first[t] = min(r0 + t, a_rows - 1u) * a_stride + a_offset;
    b_first[t] = min(c0 + t, b_rows - 1u) * b_stride;
  }
  for (uint d = 0u; d < len; ++d) {
    vec4 b[8];
    for (int c = 0; c < 8; ++c) b[c] = texelFetch(b_tex, int(b_first[c] + d));
    for (int r = 0; r < 8; ++r) {
      const vec4 x = texelFetch(a_tex, int(a_first[r] + d));
      acc[r][0] += vec4(dot(x, b[0]), dot(x, b[1]), dot(x, b[2]), dot(x, b[3]));
      acc[r][1] += vec4(dot(x, b[4]), dot(x, b[5]), dot(x, b[6]), dot(x, b[7]));
    }
  }
}

#endif
