// Counter-based standard normals, bit-for-bit the generator of engine/scaling.cpp:
// Philox4x32-10 (Salmon et al., SC'11) and Box–Muller on 24-bit uniforms.

uvec4 philox4x32_10(uvec4 c, uvec2 k) {
  for (int round = 0; round < 10; ++round) {
    uint hi0, lo0, hi1, lo1;
    umulExtended(0xD2511F53u, c.x, hi0, lo0);
    umulExtended(0xCD9E8D57u, c.z, hi1, lo1);
    c = uvec4(hi1 ^ c.y ^ k.x, lo1, hi0 ^ c.w ^ k.y, lo0);
    k += uvec2(0x9E3779B9u, 0xBB67AE85u);
  }
  return c;
}

vec2 box_muller(uint a, uint b) {
  const float u1 = (float(a >> 8u) + 1.0) * (1.0 / 16777216.0);  // (0, 1]
  const float u2 = float(b >> 8u) * (1.0 / 16777216.0);          // [0, 1)
  const float r = sqrt(-2.0 * log(u1));
  const float theta = 6.28318530717958647692 * u2;
  return r * vec2(cos(theta), sin(theta));
}

// Elements 4·block … 4·block + 3 of row `row` of trial `trial` at this d_k.
vec4 scaling_normals(uvec2 seed, uint d_k, uint trial, uint row, uint block) {
  const uvec4 x = philox4x32_10(uvec4(block, row, trial, d_k), seed);
  return vec4(box_muller(x.x, x.y), box_muller(x.z, x.w));
}
