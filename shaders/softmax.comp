#version 430
// logits L = S / (s·T) with the mask's blocked cells at −∞, and weights A = normalizer(L) row by
// row: softmax (stable: the row max is subtracted, positive overflow wins outright), sigmoid or
// hardmax. One invocation per query row, walking its row (on llvmpipe, lanes of a SIMD group are
// rows; a workgroup per row with barrier reductions was several times slower there, see
// docs/PERFORMANCE.md). A row with every key blocked gets zero weights and visible[row] = 0.
// S (s_tex, one float per texel), L, A: rows × stride floats (stride ≥ m, a multiple of 4; padding
// columns of L and A are set to 0 so that output.comp can read whole vec4s).
layout(local_size_x = 64) in;

#include "attention_common.glsl"

uniform samplerBuffer s_tex;
layout(std430, binding = 1) writeonly buffer LBuffer { float l[]; };
layout(std430, binding = 2) writeonly buffer WBuffer { float w[]; };
layout(std430, binding = 3) readonly buffer CustomMask { uint custom_words[]; };  // this chunk's rows × m bytes
layout(std430, binding = 4) writeonly buffer Visible { uint visible[]; };         // per row: visible keys

uniform uint rows;        // query rows in this chunk
uniform uint m;
uniform uint stride;
uniform uint row0;        // global index of this chunk's first row (masks depend on it)
uniform uint mask_kind;
uniform uint mask_param;
uniform float divisor;    // s·T
uniform uint normalizer;  // engine Normalizer: 0 softmax, 2 sigmoid, 3 hardmax

#include "chunk_mask.glsl"

float score(uint at) { return texelFetch(s_tex, int(at)).x; }

void main() {
  const uint row = gl_GlobalInvocationID.x;
  if (row >= rows) return;
  const uint base = row * stride;

  // Pass 1: the largest visible score and how many keys are visible. An unblocked score of −∞
  // (float overflow) is still visible, as in the CPU engine: it gets weight 0 unless every
  // visible score is −∞, and then they share the row.
  float best = NEG_INF;
  uint visible_count = 0u;
  for (uint j = 0u; j < m; ++j) {
    if (!blocked(row, j)) {
      best = max(best, score(base + j));
      ++visible_count;
    }
  }

  // Pass 2: ties with the max (hardmax, overflow) and the softmax denominator.
  float ties = 0.0, denominator = 0.0;
  if (visible_count > 0u) {
    for (uint j = 0u; j < m; ++j) {
      if (!blocked(row, j)) {
        const float x = score(base + j);
        ties += x == best ? 1.0 : 0.0;
        if (!isinf(best)) denominator += exp((x - best) / divisor);
      }
    }
  }

  // Pass 3: logits and weights.
  for (uint j = 0u; j < stride; ++j) {
    if (j >= m) {
      l[base + j] = 0.0;
      w[base + j] = 0.0;
      continue;
    }
    const float x = score(base + j);
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
  visible[row] = visible_count;
}
