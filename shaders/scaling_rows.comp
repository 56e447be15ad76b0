#version 430
// The scaling demonstration, step 2: per query row, the scores s_j (sums of the partial dot
// products), their sample variance unscaled and scaled by 1/√d_k, the largest softmax weight
// of each (1 / Σ exp(s_j − max), which is stable), and the histogram of the scaled logits.
layout(local_size_x = 64) in;

layout(std430, binding = 0) readonly buffer Partial { float partial[]; };
layout(std430, binding = 1) writeonly buffer Rows { vec4 rows_out[]; };  // var_u, var_s, maxp_u, maxp_s
layout(std430, binding = 2) buffer Histogram { uint histogram[]; };

uniform uint row_count;  // trials × queries in this batch
uniform uint keys;
uniform uint chunks;
uniform float root_dk;
uniform uint bins;
uniform float range;     // histogram covers [−range, range]

float score(uint row, uint key) {
  const uint base = (row * keys + key) * chunks;
  float s = 0.0;
  for (uint c = 0u; c < chunks; ++c) s += partial[base + c];
  return s;
}

void main() {
  const uint row = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x;
  if (row >= row_count) return;
  float mean = 0.0, best = uintBitsToFloat(0xff800000u);
  for (uint j = 0u; j < keys; ++j) {
    const float s = score(row, j);
    mean += s;
    best = max(best, s);
  }
  mean /= float(keys);
  float ss = 0.0, e_unscaled = 0.0, e_scaled = 0.0;
  for (uint j = 0u; j < keys; ++j) {
    const float s = score(row, j);
    ss += (s - mean) * (s - mean);
    e_unscaled += exp(s - best);
    e_scaled += exp((s - best) / root_dk);
    const float z = s / root_dk;
    const int bin = clamp(int(floor((z + range) / (2.0 * range) * float(bins))), 0, int(bins) - 1);
    atomicAdd(histogram[bin], 1u);
  }
  const float var = keys > 1u ? ss / float(keys - 1u) : 0.0;
  rows_out[row] = vec4(var, var / (root_dk * root_dk), 1.0 / e_unscaled, 1.0 / e_scaled);
}
