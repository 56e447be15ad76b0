#version 430
// The scaling demonstration, step 1: partial dot products q·k over chunks of d_k, with q and K
// generated on the fly from counters (nothing is uploaded). Invocation g covers
// (trial, query, chunk) = g's digits, chunk fastest, for every key: keys go eight at a time, so
// that each block of q is drawn once per eight keys instead of once per key. Each dot product
// still sums its blocks in order, so the partial sums are those of one invocation per key.
layout(local_size_x = 64) in;

#include "philox.glsl"

layout(std430, binding = 0) writeonly buffer Partial { float partial[]; };  // [trial][query][key][chunk]

uniform uvec2 seed;
uniform uint d_k;
uniform uint first_trial;
uniform uint trials;        // in this batch
uniform uint queries;
uniform uint keys;
uniform uint chunks;        // per dot product
uniform uint chunk_blocks;  // vec4 blocks per chunk

const uint KEYS_AT_ONCE = 8u;

void main() {
  const uint g = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x;
  if (g >= trials * queries * chunks) return;
  const uint chunk = g % chunks;
  const uint query = (g / chunks) % queries;
  const uint local_trial = g / (chunks * queries);
  const uint trial = first_trial + local_trial;
  const uint blocks = (d_k + 3u) / 4u;
  const uint first = chunk * chunk_blocks;
  const uint last = min(first + chunk_blocks, blocks);
  for (uint key0 = 0u; key0 < keys; key0 += KEYS_AT_ONCE) {
    float sum[KEYS_AT_ONCE];
    for (uint j = 0u; j < KEYS_AT_ONCE; ++j) sum[j] = 0.0;
    for (uint b = first; b < last; ++b) {
      const vec4 q = scaling_normals(seed, d_k, trial, query, b);
      // Elements past d_k in the last block do not exist.
      const uint valid = min(4u, d_k - 4u * b);
      const vec4 keep = vec4(1.0, valid > 1u ? 1.0 : 0.0, valid > 2u ? 1.0 : 0.0, valid > 3u ? 1.0 : 0.0);
      for (uint j = 0u; j < KEYS_AT_ONCE; ++j) {
        if (key0 + j < keys) sum[j] += dot(q, keep * scaling_normals(seed, d_k, trial, queries + key0 + j, b));
      }
    }
    for (uint j = 0u; j < KEYS_AT_ONCE; ++j) {
      if (key0 + j < keys) partial[((local_trial * queries + query) * keys + key0 + j) * chunks + chunk] = sum[j];
    }
  }
}
