#version 430
// logits L = S / (s·T) with the mask's blocked cells at −∞, and weights A = normalizer(L) row by
// row: softmax (stable: the row max is subtracted, positive overflow wins outright), sigmoid or
// hardmax. One workgroup per query row; a row with every key blocked gets zero weights and
// visible[row] = 0. S, L, A: rows × stride floats (stride ≥ m, a multiple of 4; padding
// columns of L and A are set to 0 so that output.comp can read whole vec4s).
#define ROW_LOCAL_SIZE 128u
layout(local_size_x = 128) in;

#include "attention_common.glsl"
#include "row_reduce.glsl"

layout(std430, binding = 0) readonly buffer SBuffer { float s[]; };
layout(std430, binding = 1) writeonly buffer LBuffer { float l[]; };
layout(std430, binding = 2) writeonly buffer WBuffer { float w[]; };
layout(std430, binding = 3) readonly buffer CustomMask { uint custom_words[]; };  // this chunk's rows × m bytes
layout(std430, binding = 4) writeonly buffer Visible { uint visible[]; };         // per row: visible keys

uniform uint m;
uniform uint stride;
uniform uint row0;        // global index of this chunk's first row (masks depend on it)
uniform uint mask_kind;
uniform uint mask_param;
uniform float divisor;    // s·T
uniform uint normalizer;  // engine Normalizer: 0 softmax, 2 sigmoid, 3 hardmax

bool blocked(uint row, uint j) {
  if (mask_kind == MASK_CUSTOM) {
    const uint index = row * m + j;
    return ((custom_words[index >> 2u] >> ((index & 3u) * 8u)) & 0xffu) != 0u;
  }
  return interval_blocked(mask_kind, mask_param, row0 + row, j);
}

void main() {
  const uint row = gl_WorkGroupID.x;
  const uint lid = gl_LocalInvocationID.x;
  const uint base = row * stride;

  // Pass 1: the largest visible score and how many keys are visible. An unblocked score of −∞
  // (float overflow) is still visible, as in the CPU engine: it gets weight 0 unless every
  // visible score is −∞, and then they share the row.
  float best = NEG_INF;
  float count = 0.0;
  for (uint j = lid; j < m; j += ROW_LOCAL_SIZE) {
    const float x = s[base + j];
    if (!blocked(row, j)) {
      best = max(best, x);
      count += 1.0;
    }
  }
  best = row_max(vec4(best)).x;
  const float visible_count = row_sum(vec4(count)).x;

  // Pass 2: ties with the max (hardmax, overflow) and the softmax denominator.
  float ties = 0.0, denominator = 0.0;
  if (visible_count > 0.0) {
    for (uint j = lid; j < m; j += ROW_LOCAL_SIZE) {
      const float x = s[base + j];
      if (!blocked(row, j)) {
        ties += x == best ? 1.0 : 0.0;
        if (!isinf(best)) denominator += exp((x - best) / divisor);
      }
    }
  }
  const vec4 sums = row_sum(vec4(ties, denominator, 0.0, 0.0));
  ties = sums.x;
  denominator = sums.y;

  // Pass 3: logits and weights.
  for (uint j = lid; j < stride; j += ROW_LOCAL_SIZE) {
    if (j >= m) {
      l[base + j] = 0.0;
      w[base + j] = 0.0;
      continue;
    }
    const float x = s[base + j];
    const bool hidden = blocked(row, j);
    const float logit = hidden ? NEG_INF : x / divisor;
    float a = 0.0;
    if (!hidden) {
      if (normalizer == 2u) {
        a = logit >= 0.0 ? 1.0 / (1.0 + exp(-logit)) : exp(logit) / (1.0 + exp(logit));
      } else if (normalizer == 3u || isinf(best)) {
        a = x == best ? 1.0 / ties : 0.0;
      } else {
        a = exp((x - best) / divisor) / denominator;
      }
    }
    l[base + j] = logit;
    w[base + j] = a;
  }
  if (lid == 0u) visible[row] = uint(visible_count);
}
