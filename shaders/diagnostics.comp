#version 430
// saturation a(1 − a) per cell and the row diagnostics of engine/attention.cpp's
// row_diagnostics(): max weight, entropy (nats, over the row normalized to sum 1), effective
// number of keys exp(H), and the Frobenius norm of the normalizer's Jacobian.
// One invocation per query row (as softmax.comp). A (w_tex, one float per texel), saturation:
// rows × stride floats; rows_out: rows × vec4.
// The moments are summed in double precision like the CPU: the softmax Jacobian norm of a nearly
// one-hot row is a small difference of sums close to 1, which float would cancel to 0.
layout(local_size_x = 64) in;

uniform samplerBuffer w_tex;
layout(std430, binding = 1) writeonly buffer SatBuffer { float saturation[]; };
layout(std430, binding = 2) writeonly buffer RowBuffer { vec4 rows_out[]; };

uniform uint rows;        // query rows in this chunk
uniform uint m;
uniform uint stride;
uniform uint normalizer;  // engine Normalizer: 0 softmax, 1 sparsemax, 2 sigmoid, 3 hardmax

void main() {
  const uint row = gl_GlobalInvocationID.x;
  if (row >= rows) return;
  const uint base = row * stride;
  dvec4 moments = dvec4(0.0);  // Σa, Σa², Σa⁴, Σa²(1−a)²
  dvec3 more = dvec3(0.0);     // Σ(a(1−a))², support, Σ a ln a
  float best = 0.0;
  for (uint j = 0u; j < m; ++j) {
    const float a = texelFetch(w_tex, int(base + j)).x;
    const float sat = a * (1.0 - a);
    saturation[base + j] = sat;
    const double ad = double(a), a2 = ad * ad, sat_d = ad * (1.0lf - ad);
    moments += dvec4(ad, a2, a2 * a2, sat_d * sat_d);
    more += dvec3(double(sat * sat), a > 0.0 ? 1.0lf : 0.0lf, a > 0.0 ? double(a * log(a)) : 0.0lf);
    best = max(best, a);
  }
  float entropy = 0.0;
  const float total = float(moments.x);
  if (total > 0.0) entropy = max(0.0, log(total) - float(more.z) / total);
  float jacobian = 0.0;
  if (normalizer == 0u) jacobian = float(sqrt(max(0.0lf, moments.w + moments.y * moments.y - moments.z)));
  else if (normalizer == 1u) jacobian = more.y > 0.0lf ? sqrt(float(more.y) - 1.0) : 0.0;
  else if (normalizer == 2u) jacobian = sqrt(float(more.x));
  rows_out[row] = vec4(best, entropy, total > 0.0 ? exp(entropy) : 0.0, jacobian);
}
