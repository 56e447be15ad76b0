// Register-blocked dot products shared by scores.comp (S = Q Kᵀ), output.comp (O = A V, read as
// A (Vᵀ)ᵀ) and stream_output.comp: each invocation of a TILE_GROUP × TILE_GROUP workgroup computes
// an 8 × 8 tile (TILE_ROWS 4: TILE_GROUP × 2·TILE_GROUP invocations, 4 × 8 each, shared tiles only)
// acc[r][h][c] = Σ_d a_i · b_j of its workgroup's block, for row i = tile_row(r) and
// column j = tile_col(h) + c, over rows of vec4 texels read through buffer textures. Every
// invocation must call tile_products, also those whose tile lies past the last row or column
// (their results are simply not stored): the shared-memory variant needs the whole workgroup at its
// barriers. The caller's dispatch covers its columns and rows in blocks of 8·TILE_GROUP
// (dispatch_tiles, engine/gpu/gpu_dense.hpp).
//
// Two ways to reach the operands (docs/PERFORMANCE.md, "The GPU backend on llvmpipe" and "On an
// NVIDIA GPU"):
// - by default, 8 × 8 workgroups of 64 × 64 blocks, each invocation fetching its own eight rows of
//   each operand (texelFetch). llvmpipe runs every invocation of a SIMD group in lockstep and turns
//   each storage-buffer load into a loop over the lanes, while a texel fetch becomes one vector
//   gather; with eight rows and eight keys per invocation each fetched texel feeds eight dot
//   products (2.5-3.5× the first kernel);
// - with TILE_SHARED defined (a hardware GPU), 16 × 16 workgroups of 128 × 128 blocks stage
//   TILE_SLICE (8) dimensions of their rows of each operand in shared memory, double-buffered:
//   each texel is read once per workgroup instead of sixteen times, the next slice is staged
//   into the other buffer after this one's steps (one barrier a slice), and each step is 64
//   multiply-adds for four vec4 reads of shared memory (on an H200, 2.4× the texture tiles).
//   llvmpipe suspends the whole group at every barrier, so there it is slower (bench --gpu-tiles).

const uint TILE = 8u;  // rows and columns of the tile each invocation computes
// Rows of an invocation's tile: 8, or 4 in the shared tiles' variant with half the accumulators
// (a workgroup of TILE_GROUP × 2·TILE_GROUP invocations then covers the same block), which the
// kit times on a card (fewer registers, so more workgroups may share a multiprocessor).
#ifndef TILE_ROWS
#define TILE_ROWS 8
#endif

// The accumulators must stay in registers: every loop over them has constant bounds, and NVIDIA's
// compiler is asked to unroll them all (other compilers ignore the pragma).
#pragma optionNV(unroll all)

#ifdef TILE_SHARED

// The workgroup's side in invocations and the dimensions staged per slice (a multiple of 4);
// docs/PERFORMANCE.md, "On an NVIDIA GPU", gives the variants' timings.
#ifndef TILE_GROUP
#define TILE_GROUP 16
#endif
#ifndef TILE_SLICE
#define TILE_SLICE 8
#endif
const uint TILE_BLOCK = 8u * TILE_GROUP;  // rows and columns of a workgroup's block
// (a literal: GLSL 4.30's layout qualifiers take no expressions)
#if TILE_ROWS == 4 && TILE_GROUP == 16
#define TILE_GROUP_Y 32
#elif TILE_ROWS == 4 && TILE_GROUP == 8
#define TILE_GROUP_Y 16
#elif TILE_ROWS == 4
#error "tile_dot.glsl: four rows per invocation take workgroups 8 or 16 wide"
#else
#define TILE_GROUP_Y TILE_GROUP
#endif
const uint HALF = TILE_BLOCK / 2u;
const uint SLICE_TEXELS = TILE_SLICE / 4;
// Staging jobs per operand and slice: a job is one texel (four dimensions) of four consecutive
// rows of the block, or of two of them (TILE_HALVES 2, where the workgroup has the invocations:
// every invocation then fetches two texels instead of half of them four). A's jobs go to the
// workgroup's first JOBS invocations, B's to the next JOBS.
#if 2 * 2 * (2 * TILE_GROUP) * (TILE_SLICE / 4) <= TILE_GROUP * TILE_GROUP_Y
#define TILE_HALVES 2
#else
#define TILE_HALVES 1
#endif
#if 2 * TILE_HALVES * (2 * TILE_GROUP) * (TILE_SLICE / 4) > TILE_GROUP * TILE_GROUP_Y
#error "tile_dot.glsl: both operands' staging jobs must fit the workgroup (fewer slices or a larger group)"
#endif
const uint GROUPS = TILE_BLOCK / 4u, JOB_ROWS = 4u / TILE_HALVES, JOBS = GROUPS * SLICE_TEXELS * TILE_HALVES;

// An invocation's rows are four consecutive ones in each half of the block, and so are its
// columns: the invocations of a row of the workgroup then read consecutive vec4 of shared memory
// at each step, which no two of them share a bank for.
// With four rows, an invocation's are the four consecutive ones of its row of the workgroup.
uint tile_row(uint r) {
#if TILE_ROWS == 4
  return gl_WorkGroupID.y * TILE_BLOCK + gl_LocalInvocationID.y * 4u + r;
#else
  return gl_WorkGroupID.y * TILE_BLOCK + (r / 4u) * HALF + gl_LocalInvocationID.y * 4u + r % 4u;
#endif
}
uint tile_col(uint h) { return gl_WorkGroupID.x * TILE_BLOCK + h * HALF + gl_LocalInvocationID.x * 4u; }

// [buffer][dimension within the slice][row / 4 of the block]: rows 4g … 4g + 3 at one dimension.
shared vec4 a_slice[2][TILE_SLICE][TILE_BLOCK / 4];
shared vec4 b_slice[2][TILE_SLICE][TILE_BLOCK / 4];

// A job's texels at texel `at` of its rows (zero past len, and for invocations without a job);
// first[k] is row k's first texel plus the job's texel within the slice.
void stage_fetch(samplerBuffer a_tex, samplerBuffer b_tex, uint operand, uint first[4], uint t, uint at, uint len,
                 out vec4 next[4]) {
  for (uint k = 0u; k < JOB_ROWS; ++k) {
    next[k] = vec4(0.0);
    if (at + t < len) {
      if (operand == 0u) next[k] = texelFetch(a_tex, int(first[k] + at));
      else if (operand == 1u) next[k] = texelFetch(b_tex, int(first[k] + at));
    }
  }
}

// The four rows' dimensions 4t … 4t + 3 into buffer `buf`, one whole vec4 each: a store into one
// component picked at run time becomes four branches that every lane of a warp takes (NVIDIA's
// compiler did so, and the kernel ran at 0.32 of the card's peak instead of 0.35).
// With TILE_HALVES 2 a job stores the .xy or the .zw of each vec4, by `half_`, which is the same
// for a whole warp (so no lane waits on another's branch).
void stage_store(uint operand, uint half_, uint t, uint g, uint buf, vec4 next[4]) {
  for (uint c = 0u; c < 4u; ++c) {
#if TILE_HALVES == 2
    const vec2 v = vec2(next[0][c], next[1][c]);
    if (operand == 0u) {
      if (half_ == 0u) a_slice[buf][4u * t + c][g].xy = v;
      else a_slice[buf][4u * t + c][g].zw = v;
    } else if (operand == 1u) {
      if (half_ == 0u) b_slice[buf][4u * t + c][g].xy = v;
      else b_slice[buf][4u * t + c][g].zw = v;
    }
#else
    const vec4 v = vec4(next[0][c], next[1][c], next[2][c], next[3][c]);
    if (operand == 0u) a_slice[buf][4u * t + c][g] = v;
    else if (operand == 1u) b_slice[buf][4u * t + c][g] = v;
#endif
  }
}

// Row i of A starts at texel min(i, a_rows − 1)·a_stride + a_offset, row j of B at
// min(j, b_rows − 1)·b_stride; len texels each (rows past the end repeat the last one).
void tile_products(samplerBuffer a_tex, uint a_rows, uint a_stride, uint a_offset, samplerBuffer b_tex, uint b_rows,
                   uint b_stride, uint len, out vec4 acc[TILE_ROWS][2]) {
  // Sixteen named accumulators (row r, column half h: c<r><h>; eight with four rows), not an
  // array, so that no compiler keeps them in memory across the loop; they go to acc once at the end.
  vec4 c00 = vec4(0.0), c01 = vec4(0.0), c10 = vec4(0.0), c11 = vec4(0.0), c20 = vec4(0.0), c21 = vec4(0.0);
  vec4 c30 = vec4(0.0), c31 = vec4(0.0);
#if TILE_ROWS == 8
  vec4 c40 = vec4(0.0), c41 = vec4(0.0), c50 = vec4(0.0), c51 = vec4(0.0), c60 = vec4(0.0), c61 = vec4(0.0);
  vec4 c70 = vec4(0.0), c71 = vec4(0.0);
#endif
  const uint li = gl_LocalInvocationIndex, operand = li / JOBS, job = li % JOBS;
  const uint half_ = job / (GROUPS * SLICE_TEXELS), g = job % GROUPS, t = (job / GROUPS) % SLICE_TEXELS;
  const bool is_a = operand == 0u;
  const uint o_rows = is_a ? a_rows : b_rows, o_stride = is_a ? a_stride : b_stride;
  const uint o_row0 = (is_a ? gl_WorkGroupID.y : gl_WorkGroupID.x) * TILE_BLOCK + 4u * g + JOB_ROWS * half_;
  uint first[4];
  for (uint k = 0u; k < JOB_ROWS; ++k) {
    first[k] = min(o_row0 + k, o_rows - 1u) * o_stride + (is_a ? a_offset : 0u) + t;
  }
  vec4 next[4];
  stage_fetch(a_tex, b_tex, operand, first, t, 0u, len, next);
  stage_store(operand, half_, t, g, 0u, next);
  barrier();
  const uint ly = gl_LocalInvocationID.y, lx = gl_LocalInvocationID.x;
  uint buf = 0u;
  for (uint d0 = 0u; d0 < len; d0 += SLICE_TEXELS) {
    const bool more = d0 + SLICE_TEXELS < len;  // the same for the whole workgroup
    for (uint d = 0u; d < TILE_SLICE; ++d) {
      const vec4 a0 = a_slice[buf][d][ly];
      const vec4 b0 = b_slice[buf][d][lx], b1 = b_slice[buf][d][TILE_GROUP + lx];
      c00 = fma(vec4(a0.x), b0, c00);
      c01 = fma(vec4(a0.x), b1, c01);
      c10 = fma(vec4(a0.y), b0, c10);
      c11 = fma(vec4(a0.y), b1, c11);
      c20 = fma(vec4(a0.z), b0, c20);
      c21 = fma(vec4(a0.z), b1, c21);
      c30 = fma(vec4(a0.w), b0, c30);
      c31 = fma(vec4(a0.w), b1, c31);
#if TILE_ROWS == 8
      const vec4 a1 = a_slice[buf][d][TILE_GROUP + ly];
      c40 = fma(vec4(a1.x), b0, c40);
      c41 = fma(vec4(a1.x), b1, c41);
      c50 = fma(vec4(a1.y), b0, c50);
      c51 = fma(vec4(a1.y), b1, c51);
      c60 = fma(vec4(a1.z), b0, c60);
      c61 = fma(vec4(a1.z), b1, c61);
      c70 = fma(vec4(a1.w), b0, c70);
      c71 = fma(vec4(a1.w), b1, c71);
#endif
    }
    // The next slice is fetched after the steps, not before them, so that its texels are not held
    // in registers across the steps: an H200 ran the kernel at 0.376 of its peak that way and at
    // 0.451 this way, and at 0.471 with the steps unrolled (beside the held texels, unrolled steps
    // took 200 registers). Other workgroups' steps cover the fetch's wait.
    if (more) {
      stage_fetch(a_tex, b_tex, operand, first, t, d0 + SLICE_TEXELS, len, next);
      stage_store(operand, half_, t, g, buf ^ 1u, next);
    }
    // One barrier a slice: the buffer staged above is read only after it, and the one read above
    // is written again only after the next one.
    barrier();
    buf ^= 1u;
  }
  acc[0][0] = c00; acc[0][1] = c01; acc[1][0] = c10; acc[1][1] = c11;
  acc[2][0] = c20; acc[2][1] = c21; acc[3][0] = c30; acc[3][1] = c31;
#if TILE_ROWS == 8
  acc[4][0] = c40; acc[4][1] = c41; acc[5][0] = c50; acc[5][1] = c51;
  acc[6][0] = c60; acc[6][1] = c61; acc[7][0] = c70; acc[7][1] = c71;
#endif
}

#else

#if TILE_ROWS != 8
#error "tile_dot.glsl: the texture tiles compute eight rows per invocation"
#endif
#define TILE_GROUP 8
#define TILE_GROUP_Y 8
const uint TILE_BLOCK = 64u;

uint tile_row(uint r) { return gl_GlobalInvocationID.y * TILE + r; }
uint tile_col(uint h) { return gl_GlobalInvocationID.x * TILE + 4u * h; }

void tile_products(samplerBuffer a_tex, uint a_rows, uint a_stride, uint a_offset, samplerBuffer b_tex, uint b_rows,
                   uint b_stride, uint len, out vec4 acc[TILE_ROWS][2]) {
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
