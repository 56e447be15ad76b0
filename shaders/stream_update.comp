#version 430
// Streaming, step 2 of each key tile: the online softmax of one tile of scores. One workgroup per
// query row: the tile's moments (every score, and the visible ones), its visible maximum, the new
// running maximum M', p = exp((s − M')·c) into P (0 for blocked cells and the padding columns),
// and the row's sums rescaled to the new frame (α, kept for stream_output.comp and the heatmap).
// S, P: rows × stride floats (this tile's keys first, then padding up to stride).
#define ROW_LOCAL_SIZE 64u
layout(local_size_x = 64) in;

#include "attention_common.glsl"
#include "streaming_common.glsl"

layout(std430, binding = 0) readonly buffer SBuffer { float s[]; };
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

shared double red_d[ROW_LOCAL_SIZE][6];
shared float red_f[ROW_LOCAL_SIZE][4];
shared float new_max;

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
  const uint row = gl_WorkGroupID.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint base = row * stride;

  // Pass 1: moments of every score and of the visible ones, the visible maximum, NaNs.
  double an = 0.0, am = 0.0, a2 = 0.0, vn = 0.0, vm = 0.0, v2 = 0.0;
  float amin = POS_INF, amax = NEG_INF, vmin = POS_INF, vmax = NEG_INF;
  bool nan_seen = false;
  for (uint j = lid; j < keys; j += ROW_LOCAL_SIZE) {
    const float x = s[base + j];
    if (isnan(x)) {
      nan_seen = true;
      continue;
    }
    const double dx = double(x);
    an += 1.0;
    double d = dx - am;
    am += d / an;
    a2 += d * (dx - am);
    amin = min(amin, x);
    amax = max(amax, x);
    if (!blocked(row, key0 + j)) {
      vn += 1.0;
      d = dx - vm;
      vm += d / vn;
      v2 += d * (dx - vm);
      vmin = min(vmin, x);
      vmax = max(vmax, x);
    }
  }
  if (nan_seen) atomicOr(flags[row], FLAG_NAN);
  // Tree merge of the per-invocation moments and extremes.
  red_d[lid][0] = an; red_d[lid][1] = am; red_d[lid][2] = a2;
  red_d[lid][3] = vn; red_d[lid][4] = vm; red_d[lid][5] = v2;
  red_f[lid][0] = amin; red_f[lid][1] = amax; red_f[lid][2] = vmin; red_f[lid][3] = vmax;
  barrier();
  for (uint half_size = ROW_LOCAL_SIZE / 2u; half_size > 0u; half_size >>= 1u) {
    if (lid < half_size) {
      const uint o = lid + half_size;
      double n0 = red_d[lid][0], m0 = red_d[lid][1], q0 = red_d[lid][2];
      merge_moments(n0, m0, q0, red_d[o][0], red_d[o][1], red_d[o][2]);
      red_d[lid][0] = n0; red_d[lid][1] = m0; red_d[lid][2] = q0;
      double n1 = red_d[lid][3], m1 = red_d[lid][4], q1 = red_d[lid][5];
      merge_moments(n1, m1, q1, red_d[o][3], red_d[o][4], red_d[o][5]);
      red_d[lid][3] = n1; red_d[lid][4] = m1; red_d[lid][5] = q1;
      red_f[lid][0] = min(red_f[lid][0], red_f[o][0]);
      red_f[lid][1] = max(red_f[lid][1], red_f[o][1]);
      red_f[lid][2] = min(red_f[lid][2], red_f[o][2]);
      red_f[lid][3] = max(red_f[lid][3], red_f[o][3]);
    }
    barrier();
  }
  if (lid == 0u) {
    const uint sb = row * SUMS_PER_ROW, fb = row * FLOATS_PER_ROW;
    double n0 = sums[sb + ALL_COUNT], m0 = sums[sb + ALL_MEAN], q0 = sums[sb + ALL_M2];
    merge_moments(n0, m0, q0, red_d[0][0], red_d[0][1], red_d[0][2]);
    sums[sb + ALL_COUNT] = n0; sums[sb + ALL_MEAN] = m0; sums[sb + ALL_M2] = q0;
    double n1 = sums[sb + VIS_COUNT], m1 = sums[sb + VIS_MEAN], q1 = sums[sb + VIS_M2];
    merge_moments(n1, m1, q1, red_d[0][3], red_d[0][4], red_d[0][5]);
    sums[sb + VIS_COUNT] = n1; sums[sb + VIS_MEAN] = m1; sums[sb + VIS_M2] = q1;
    floats[fb + ALL_MIN] = min(floats[fb + ALL_MIN], red_f[0][0]);
    floats[fb + ALL_MAX] = max(floats[fb + ALL_MAX], red_f[0][1]);
    floats[fb + VIS_MIN] = min(floats[fb + VIS_MIN], red_f[0][2]);
    floats[fb + VIS_MAX] = max(floats[fb + VIS_MAX], red_f[0][3]);
    // As the CPU path: a +∞ score sends the row to the exact path and contributes nothing here.
    float tile_max = red_f[0][3];
    if (tile_max == POS_INF) atomicOr(flags[row], FLAG_EXACT);
    if ((flags[row] & FLAG_EXACT) != 0u) tile_max = NEG_INF;
    new_max = max(floats[fb + ROW_MAX], tile_max);
  }
  barrier();
  const float M = new_max;

  // Pass 2: p in the frame of M', and this tile's sums.
  double z = 0.0, rest = 0.0, ties = 0.0, t = 0.0, u2 = 0.0, u3 = 0.0;
  for (uint j = lid; j < stride; j += ROW_LOCAL_SIZE) {
    float p = 0.0;
    if (j < keys && M != NEG_INF) {
      const float x = s[base + j];
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
  red_d[lid][0] = z; red_d[lid][1] = rest; red_d[lid][2] = ties;
  red_d[lid][3] = t; red_d[lid][4] = u2; red_d[lid][5] = u3;
  barrier();
  for (uint half_size = ROW_LOCAL_SIZE / 2u; half_size > 0u; half_size >>= 1u) {
    if (lid < half_size) {
      for (int k = 0; k < 6; ++k) red_d[lid][k] += red_d[lid + half_size][k];
    }
    barrier();
  }
  if (lid == 0u) {
    const uint sb = row * SUMS_PER_ROW, fb = row * FLOATS_PER_ROW;
    const float old_max = floats[fb + ROW_MAX];
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
    sums[sb + SUM_Z] += red_d[0][0];
    sums[sb + SUM_REST] += red_d[0][1];
    sums[sb + SUM_TIES] += red_d[0][2];
    sums[sb + SUM_T] += red_d[0][3];
    sums[sb + SUM_U2] += red_d[0][4];
    sums[sb + SUM_U3] += red_d[0][5];
  }
}
