#version 430
// Streaming, step 2 of each key tile: the online softmax of one tile of scores. One invocation per
// query row (no barriers: on llvmpipe each barrier suspends every invocation of the group, which
// cost more than the row's arithmetic; each lane walks its own row): the tile's moments (every score, and the visible ones), its visible maximum, the new
// running maximum M', p = exp((s − M')·c) into P (0 for blocked cells and the padding columns),
// and the row's sums rescaled to the new frame (α, kept for stream_output.comp and the heatmap).
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

uniform uint keys;       // keys in this tile
uniform uint stride;     // floats per row of S and P
uniform uint key0;       // global index of the tile's first key
uniform uint row0;       // global index of the chunk's first row
uniform uint m;          // all keys (custom mask rows)
uniform uint mask_kind;
uniform uint mask_param;
uniform float c;         // 1/(s·T)
uniform uint rows;       // query rows in this chunk

bool blocked(uint row, uint j) {
  if (mask_kind == MASK_CUSTOM) {
    const uint index = row * m + j;
    return ((custom_words[index >> 2u] >> ((index & 3u) * 8u)) & 0xffu) != 0u;
  }
  return interval_blocked(mask_kind, mask_param, row0 + row, j);
}

// Merges moments (count, mean, m2) b into a (Chan et al.).
void merge_moments(inout double an, inout double am, inout double a2, double bn, double bm, double b2) {
  if (bn == 0.0) return;
  if (an == 0.0) {
    an = bn;
    am = bm;
    a2 = b2;
    return;
  }
  const double n = an + bn, delta = bm - am;
  am = am * (an / n) + bm * (bn / n);
  a2 = a2 + b2 + delta * delta * an * (bn / n);
  an = n;
}

void main() {
  const uint row = gl_GlobalInvocationID.x;
  if (row >= rows) return;
  const uint base = row * stride;
  const uint sb = row * SUMS_PER_ROW, fb = row * FLOATS_PER_ROW;

  // Pass 1: sums, extremes and the visible maximum; NaNs.
  double an = 0.0, asum = 0.0, vn = 0.0, vsum = 0.0;
  float amin = POS_INF, amax = NEG_INF, vmin = POS_INF, vmax = NEG_INF;
  bool nan_seen = false;
  for (uint j = 0u; j < keys; ++j) {
    const float x = texelFetch(s_tex, int(base + j)).x;
    if (isnan(x)) {
      nan_seen = true;
      continue;
    }
    an += 1.0;
    asum += double(x);
    amin = min(amin, x);
    amax = max(amax, x);
    if (!blocked(row, key0 + j)) {
      vn += 1.0;
      vsum += double(x);
      vmin = min(vmin, x);
      vmax = max(vmax, x);
    }
  }
  // Pass 1b: squared deviations around the tile's means (two passes: exact where Welford would
  // divide per cell).
  const double amean = an > 0.0 ? asum / an : 0.0, vmean = vn > 0.0 ? vsum / vn : 0.0;
  double a2 = 0.0, v2 = 0.0;
  if (!isinf(amin) && !isinf(amax)) {
    for (uint j = 0u; j < keys; ++j) {
      const float x = texelFetch(s_tex, int(base + j)).x;
      if (isnan(x)) continue;
      const double da = double(x) - amean;
      a2 += da * da;
      if (!blocked(row, key0 + j)) {
        const double dv = double(x) - vmean;
        v2 += dv * dv;
      }
    }
  }
  uint f = flags[row];
  if (nan_seen) f |= FLAG_NAN;
  // An overflowed (±∞) score: its moments and its row are the CPU exact path's to compute.
  if (isinf(amin) || isinf(amax)) f |= FLAG_EXACT;
  {
    double n0 = sums[sb + ALL_COUNT], m0 = sums[sb + ALL_MEAN], q0 = sums[sb + ALL_M2];
    merge_moments(n0, m0, q0, an, amean, a2);
    sums[sb + ALL_COUNT] = n0; sums[sb + ALL_MEAN] = m0; sums[sb + ALL_M2] = q0;
    double n1 = sums[sb + VIS_COUNT], m1 = sums[sb + VIS_MEAN], q1 = sums[sb + VIS_M2];
    merge_moments(n1, m1, q1, vn, vmean, v2);
    sums[sb + VIS_COUNT] = n1; sums[sb + VIS_MEAN] = m1; sums[sb + VIS_M2] = q1;
  }
  floats[fb + ALL_MIN] = min(floats[fb + ALL_MIN], amin);
  floats[fb + ALL_MAX] = max(floats[fb + ALL_MAX], amax);
  floats[fb + VIS_MIN] = min(floats[fb + VIS_MIN], vmin);
  floats[fb + VIS_MAX] = max(floats[fb + VIS_MAX], vmax);
  // A row flagged for the exact path contributes nothing here.
  float tile_max = vmax;
  if ((f & FLAG_EXACT) != 0u) tile_max = NEG_INF;
  flags[row] = f;
  const float old_max = floats[fb + ROW_MAX];
  const float M = max(old_max, tile_max);

  // Pass 2: p in the frame of M', and this tile's sums.
  double z = 0.0, rest = 0.0, ties = 0.0, t = 0.0, u2 = 0.0, u3 = 0.0;
  for (uint j = 0u; j < stride; ++j) {
    float p = 0.0;
    if (j < keys && M != NEG_INF) {
      const float x = texelFetch(s_tex, int(base + j)).x;
      if (!blocked(row, key0 + j) && x > NEG_INF) {
        p = exp((x - M) * c);
        const double dp = double(p);
        z += dp;
        if (x < M) {
          rest += dp;
          u2 += dp * dp;
          u3 += dp * dp * dp;
        } else {
          ties += 1.0;
        }
        t += dp * (double(x - M) * double(c));
      }
    }
    p_out[base + j] = p;
  }

  float alpha = 1.0;
  if (M != old_max && M != NEG_INF) {
    // Every earlier p shrinks by α = exp((M − M')·c); the old ties join the rest.
    const double zs = sums[sb + SUM_Z];
    if (zs > 0.0) {
      const double shift = double(old_max - M) * double(c);
      alpha = exp(float(shift));
      const double a = double(alpha), ts = sums[sb + SUM_TIES];
      sums[sb + SUM_T] = a * (sums[sb + SUM_T] + shift * zs);
      sums[sb + SUM_Z] = a * zs;
      sums[sb + SUM_REST] = a * (sums[sb + SUM_REST] + ts);
      sums[sb + SUM_U2] = a * a * (sums[sb + SUM_U2] + ts);
      sums[sb + SUM_U3] = a * a * a * (sums[sb + SUM_U3] + ts);
      sums[sb + SUM_TIES] = 0.0;
    } else {
      alpha = 0.0;
    }
    floats[fb + ROW_MAX] = M;
  }
  floats[fb + ROW_ALPHA] = alpha;
  sums[sb + SUM_Z] += z;
  sums[sb + SUM_REST] += rest;
  sums[sb + SUM_TIES] += ties;
  sums[sb + SUM_T] += t;
  sums[sb + SUM_U2] += u2;
  sums[sb + SUM_U3] += u3;
}
