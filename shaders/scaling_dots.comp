#version 430
// The scaling demonstration, step 1: partial dot products q·k over chunks of d_k, with q and K
// generated on the fly from counters (nothing is uploaded). Invocation g covers
// (trial, query, key, chunk) = g's digits, chunk fastest.
layout(local_size_x = 64) in;

#include "philox.glsl"

layout(std430, binding = 0) writeonly buffer Partial { float partial[]; };

uniform uvec2 seed;
uniform uint d_k;
uniform uint first_trial;
uniform uint trials;        // in this batch
uniform uint queries;
uniform uint keys;
uniform uint chunks;        // per dot product
uniform uint chunk_blocks;  // vec4 blocks per chunk

void main() {
  const uint g = gl_GlobalInvocationID.y * gl_NumWorkGroups.x * 64u + gl_GlobalInvocationID.x;
  if (g >= trials * queries * keys * chunks) return;
  const uint chunk = g % chunks;
  const uint key = (g / chunks) % keys;
  const uint query = (g / (chunks * keys)) % queries;
  const uint trial = first_trial + g / (chunks * keys * queries);
  const uint blocks = (d_k + 3u) / 4u;
  const uint first = chunk * chunk_blocks;
  const uint last = min(first + chunk_blocks, blocks);
  float sum = 0.0;
  for (uint b = first; b < last; ++b) {
    const vec4 q = scaling_normals(seed, d_k, trial, query, b);
    vec4 k = scaling_normals(seed, d_k, trial, queries + key, b);
    // Elements past d_k in the last block do not exist.
    const uint valid = min(4u, d_k - 4u * b);
    if (valid < 4u) k *= vec4(1.0, valid > 1u ? 1.0 : 0.0, valid > 2u ? 1.0 : 0.0, 0.0);
    sum += dot(q, k);
  }
  partial[g] = sum;
}
