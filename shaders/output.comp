#version 430
// output O = A V for one chunk of query rows and one chunk of keys, accumulated over key chunks.
// Register-blocked like scores.comp: each invocation computes 4 rows × 4 value columns.
// A (weights): rows × w_stride vec4, this key chunk starting at vec4 column w_col; padding
// columns hold 0. V: keys_vec4·4 rows × dv_vec4 vec4, zero-padded. O: rows × dv_vec4 vec4.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) readonly buffer WBuffer { vec4 w[]; };
layout(std430, binding = 1) readonly buffer VBuffer { vec4 v[]; };
layout(std430, binding = 2) buffer OBuffer { vec4 o[]; };

uniform uint rows;
uniform uint keys_vec4;   // keys in this chunk / 4 (padded)
uniform uint dv_vec4;
uniform uint w_stride;
uniform uint w_col;
uniform uint accumulate;  // 1: add to what earlier key chunks wrote

void main() {
  const uint cq = gl_GlobalInvocationID.x;  // 4 value columns
  const uint rq = gl_GlobalInvocationID.y;  // 4 query rows
  if (cq >= dv_vec4 || rq * 4u >= rows) return;
  const uint r = rq * 4u;
  const uint w0 = min(r + 0u, rows - 1u) * w_stride + w_col;
  const uint w1 = min(r + 1u, rows - 1u) * w_stride + w_col;
  const uint w2 = min(r + 2u, rows - 1u) * w_stride + w_col;
  const uint w3 = min(r + 3u, rows - 1u) * w_stride + w_col;
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  for (uint j = 0u; j < keys_vec4; ++j) {
    const uint vb = j * 4u * dv_vec4 + cq;
    const vec4 v0 = v[vb], v1 = v[vb + dv_vec4], v2 = v[vb + 2u * dv_vec4], v3 = v[vb + 3u * dv_vec4];
    const vec4 a0 = w[w0 + j];
    acc0 += a0.x * v0 + a0.y * v1 + a0.z * v2 + a0.w * v3;
    const vec4 a1 = w[w1 + j];
    acc1 += a1.x * v0 + a1.y * v1 + a1.z * v2 + a1.w * v3;
    const vec4 a2 = w[w2 + j];
    acc2 += a2.x * v0 + a2.y * v1 + a2.z * v2 + a2.w * v3;
    const vec4 a3 = w[w3 + j];
    acc3 += a3.x * v0 + a3.y * v1 + a3.z * v2 + a3.w * v3;
  }
  const uint base = r * dv_vec4 + cq;
  if (accumulate != 0u) {
    acc0 += o[base];
    if (r + 1u < rows) acc1 += o[base + dv_vec4];
    if (r + 2u < rows) acc2 += o[base + 2u * dv_vec4];
    if (r + 3u < rows) acc3 += o[base + 3u * dv_vec4];
  }
  o[base] = acc0;
  if (r + 1u < rows) o[base + dv_vec4] = acc1;
  if (r + 2u < rows) o[base + 2u * dv_vec4] = acc2;
  if (r + 3u < rows) o[base + 3u * dv_vec4] = acc3;
}
