#version 430
// Streaming, after the last key tile of a chunk of query rows: each finished row's heatmap pixels,
// brought to the row's final frame and divided by its softmax denominator z (so they are weights),
// are added into the whole heatmap (sum and max per pixel). Invocation x owns pixel column x and
// walks the chunk's rows in order, so rows that share a pixel row never race.
layout(local_size_x = 64) in;

#include "attention_common.glsl"
#include "streaming_common.glsl"

layout(std430, binding = 0) readonly buffer RowSums { double sums[]; };
layout(std430, binding = 1) readonly buffer RowFloats { float floats[]; };
layout(std430, binding = 2) readonly buffer HeatSum { float hsum[]; };
layout(std430, binding = 3) readonly buffer HeatMax { float hmax[]; };
layout(std430, binding = 4) readonly buffer HeatFrame { float frame[]; };
layout(std430, binding = 5) buffer MapSum { float map_sum[]; };  // hrows × hcols
layout(std430, binding = 6) buffer MapMax { float map_max[]; };  // hrows × hcols

uniform uint rows;
uniform uint row0;
uniform uint n;
uniform uint hrows;
uniform uint hcols;
uniform float c;

void main() {
  const uint px = gl_GlobalInvocationID.x;
  if (px >= hcols) return;
  for (uint r = 0u; r < rows; ++r) {
    const double z = sums[r * SUMS_PER_ROW + SUM_Z];
    const uint at = r * hcols + px;
    const float f = frame[at];
    if (!(z > 0.0) || f == NEG_INF) continue;
    const float M = floats[r * FLOATS_PER_ROW + ROW_MAX];
    const float scale = exp((f - M) * c) * float(1.0 / z);
    const uint py = pixel_of(row0 + r, n, hrows);
    map_sum[py * hcols + px] += hsum[at] * scale;
    map_max[py * hcols + px] = max(map_max[py * hcols + px], hmax[at] * scale);
  }
}
