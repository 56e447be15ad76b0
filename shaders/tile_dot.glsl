// Register-blocked dot products shared by scores.comp (S = Q Kᵀ) and output.comp (O = A V, read as
// A (Vᵀ)ᵀ): one invocation computes an 8 × 8 tile acc[r][h][c] = Σ_d a_r · b_(4h+c) over rows of
// vec4 texels. Both operands are read through buffer textures (texelFetch), not storage buffers:
// llvmpipe runs every invocation of a SIMD group in lockstep and turns each storage-buffer load
// into a loop over the lanes with a bounds check per lane, while a texel fetch becomes one
// vector gather; with eight rows and eight keys per invocation each fetched texel feeds eight
// dot products. Together that measured 2.5-3.5× the 4 × 4 storage-buffer kernel (docs/PERFORMANCE.md).

const uint TILE = 8u;  // rows and columns of the tile each invocation computes

// a_first[r], b_first[c]: texel index of the start of row r of A and of row c of B (rows past
// the end should repeat a valid row: their results are simply not stored). len: texels per row.
void tile_dot(samplerBuffer a_tex, const uint a_first[8], samplerBuffer b_tex, const uint b_first[8], uint len,
              out vec4 acc[8][2]) {
  for (int r = 0; r < 8; ++r) {
    acc[r][0] = vec4(0.0);
    acc[r][1] = vec4(0.0);
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
