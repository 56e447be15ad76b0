#version 430
// Streaming, step 4 of each key tile (when a heatmap is asked for): adds this tile's p into each
// row's heatmap pixels. Invocation (x, y) owns pixel column px0 + x of chunk row y, so no two
// invocations touch one pixel. Each pixel keeps its sum and max in the frame of the row maximum
// it was last updated in (`frame`), and is brought to the current frame only when touched again
// (stream_heat_rows.comp brings every pixel to the row's final frame).
layout(local_size_x = 64) in;

#include "attention_common.glsl"
#include "streaming_common.glsl"

layout(std430, binding = 0) readonly buffer PBuffer { float p[]; };
layout(std430, binding = 1) readonly buffer RowFloats { float floats[]; };
layout(std430, binding = 2) buffer HeatSum { float hsum[]; };     // chunk rows × hcols
layout(std430, binding = 3) buffer HeatMax { float hmax[]; };     // chunk rows × hcols
layout(std430, binding = 4) buffer HeatFrame { float frame[]; };  // chunk rows × hcols, −∞ at first

uniform uint rows;
uniform uint stride;   // floats per row of P
uniform uint key0;     // global index of the tile's first key
uniform uint keys;     // keys in this tile
uniform uint m;
uniform uint hcols;
uniform uint px0;      // first pixel column touching this tile
uniform uint px_count;
uniform float c;

void main() {
  const uint x = gl_GlobalInvocationID.x;
  const uint row = gl_GlobalInvocationID.y;
  if (x >= px_count || row >= rows) return;
  const float M = floats[row * FLOATS_PER_ROW + ROW_MAX];
  if (M == NEG_INF) return;  // nothing visible so far
  const uint px = px0 + x;
  const uint a = max(pixel_first(px, m, hcols), key0), b = min(pixel_first(px + 1u, m, hcols), key0 + keys);
  float sum = 0.0, mx = 0.0;
  for (uint j = a; j < b; ++j) {
    const float v = p[row * stride + (j - key0)];
    sum += v;
    mx = max(mx, v);
  }
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
