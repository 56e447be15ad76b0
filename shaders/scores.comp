#version 430
// scores S = Q Kᵀ for one chunk of query rows against one chunk of keys. Register-blocked: each
// invocation computes a 4 × 4 tile of S from vec4 loads, with no shared memory (on llvmpipe this
// runs ~10× faster than one dot product per invocation; on GPUs it keeps the FMA units busy).
// Q: rows × dk_vec4 vec4 (d_k zero-padded to a multiple of 4); K: keys × dk_vec4 vec4;
// S: rows × s_stride vec4, this key chunk starting at vec4 column s_col.
layout(local_size_x = 8, local_size_y = 8) in;

layout(std430, binding = 0) readonly buffer QBuffer { vec4 q[]; };
layout(std430, binding = 1) readonly buffer KBuffer { vec4 k[]; };
layout(std430, binding = 2) writeonly buffer SBuffer { vec4 s[]; };

uniform uint rows;
uniform uint keys;
uniform uint dk_vec4;
uniform uint s_stride;
uniform uint s_col;

void main() {
  const uint kq = gl_GlobalInvocationID.x;  // 4 keys
  const uint rq = gl_GlobalInvocationID.y;  // 4 query rows
  if (kq * 4u >= keys || rq * 4u >= rows) return;
  // Rows and keys past the end repeat the last one; their results are never stored or read.
  const uint q0 = min(rq * 4u + 0u, rows - 1u) * dk_vec4;
  const uint q1 = min(rq * 4u + 1u, rows - 1u) * dk_vec4;
  const uint q2 = min(rq * 4u + 2u, rows - 1u) * dk_vec4;
  const uint q3 = min(rq * 4u + 3u, rows - 1u) * dk_vec4;
  const uint k0 = min(kq * 4u + 0u, keys - 1u) * dk_vec4;
  const uint k1 = min(kq * 4u + 1u, keys - 1u) * dk_vec4;
  const uint k2 = min(kq * 4u + 2u, keys - 1u) * dk_vec4;
  const uint k3 = min(kq * 4u + 3u, keys - 1u) * dk_vec4;
  vec4 acc0 = vec4(0.0), acc1 = vec4(0.0), acc2 = vec4(0.0), acc3 = vec4(0.0);
  for (uint d = 0u; d < dk_vec4; ++d) {
    const vec4 b0 = k[k0 + d], b1 = k[k1 + d], b2 = k[k2 + d], b3 = k[k3 + d];
    const vec4 a0 = q[q0 + d];
    acc0 += vec4(dot(a0, b0), dot(a0, b1), dot(a0, b2), dot(a0, b3));
    const vec4 a1 = q[q1 + d];
    acc1 += vec4(dot(a1, b0), dot(a1, b1), dot(a1, b2), dot(a1, b3));
    const vec4 a2 = q[q2 + d];
    acc2 += vec4(dot(a2, b0), dot(a2, b1), dot(a2, b2), dot(a2, b3));
    const vec4 a3 = q[q3 + d];
    acc3 += vec4(dot(a3, b0), dot(a3, b1), dot(a3, b2), dot(a3, b3));
  }
  const uint col = s_col + kq;
  const uint r = rq * 4u;
  s[r * s_stride + col] = acc0;
  if (r + 1u < rows) s[(r + 1u) * s_stride + col] = acc1;
  if (r + 2u < rows) s[(r + 2u) * s_stride + col] = acc2;
  if (r + 3u < rows) s[(r + 3u) * s_stride + col] = acc3;
}
