#version 430
// saturation a(1 − a) per cell and the row diagnostics of engine/attention.cpp's
// row_diagnostics(): max weight, entropy (nats, over the row normalized to sum 1), effective
// number of keys exp(H), and the Frobenius norm of the normalizer's Jacobian.
// One workgroup per query row. A, saturation: rows × stride floats; rows_out: rows × vec4.
// The moments are summed in double precision like the CPU: the softmax Jacobian norm of a nearly
// one-hot row is a small difference of sums close to 1, which float would cancel to 0.
#define ROW_LOCAL_SIZE 128u
layout(local_size_x = 128) in;

#include "row_reduce.glsl"

shared dvec4 moment_scratch[ROW_LOCAL_SIZE];

dvec4 row_sum_double(dvec4 x) {
  const uint lid = gl_LocalInvocationID.x;
  moment_scratch[lid] = x;
  barrier();
  for (uint stride = ROW_LOCAL_SIZE / 2u; stride > 0u; stride >>= 1u) {
    if (lid < stride) moment_scratch[lid] += moment_scratch[lid + stride];
    barrier();
  }
  const dvec4 total = moment_scratch[0];
  barrier();
  return total;
}

layout(std430, binding = 0) readonly buffer WBuffer { float w[]; };
layout(std430, binding = 1) writeonly buffer SatBuffer { float saturation[]; };
layout(std430, binding = 2) writeonly buffer RowBuffer { vec4 rows_out[]; };

uniform uint m;
uniform uint stride;
uniform uint normalizer;  // engine Normalizer: 0 softmax, 1 sparsemax, 2 sigmoid, 3 hardmax

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint base = row * stride;
  dvec4 moments = dvec4(0.0);  // Σa, Σa², Σa⁴, Σa²(1−a)²
  vec4 more = vec4(0.0);     // Σ(a(1−a))², support, Σ a ln a, unused
  float best = 0.0;
  for (uint j = lid; j < m; j += ROW_LOCAL_SIZE) {
    const float a = w[base + j];
    const float sat = a * (1.0 - a);
    saturation[base + j] = sat;
    const double ad = double(a), a2 = ad * ad, sat_d = ad * (1.0lf - ad);
    moments += dvec4(ad, a2, a2 * a2, sat_d * sat_d);
    more += vec4(sat * sat, a > 0.0 ? 1.0 : 0.0, a > 0.0 ? a * log(a) : 0.0, 0.0);
    best = max(best, a);
  }
  moments = row_sum_double(moments);
  more = row_sum(more);
  best = row_max(vec4(best)).x;
  if (lid != 0u) return;
  float entropy = 0.0;
  const float total = float(moments.x);
  if (total > 0.0) entropy = max(0.0, log(total) - more.z / total);
  float jacobian = 0.0;
  if (normalizer == 0u) jacobian = float(sqrt(max(0.0lf, moments.w + moments.y * moments.y - moments.z)));
  else if (normalizer == 1u) jacobian = more.y > 0.0 ? sqrt(more.y - 1.0) : 0.0;
  else if (normalizer == 2u) jacobian = sqrt(more.x);
  rows_out[row] = vec4(best, entropy, total > 0.0 ? exp(entropy) : 0.0, jacobian);
}
