// The blocks every family's forward is composed of (llama.cpp's build_norm, build_qkv, rope,
// build_attn, build_ffn): float32 on row-major rows with explicit strides, OpenMP around
// single-threaded OpenBLAS products. Weights come straight from the mapped files (families.hpp).
#pragma once

#include "engine/model/families.hpp"
#include "engine/model/language_model.hpp"

#include <cstdint>
#include <vector>

namespace attnlab::model::blocks {

// Rows [r0, r1) of a tensor (rows of `row_len`) as floats: where they are mapped when F32 and
// 4-byte aligned (never copied), else converted into `scratch`.
const float* floats(TensorRef t, std::int64_t r0, std::int64_t r1, std::int64_t row_len, std::vector<float>& scratch);
// The whole tensor as floats; null for an empty ref.
const float* whole(TensorRef t, std::vector<float>& scratch);

// y (n × d, row stride ldy) = norm(x) (n × d, row stride ldx) · w (+ b): LayerNorm (mean and
// biased variance, b given) or RMSNorm (x·(mean(x²) + ε)^(−½), b null), accumulated in double.
void norm(NormKind kind, const float* x, std::int64_t ldx, std::int64_t n, std::int64_t d, const float* w, const float* b, double eps,
          float* y, std::int64_t ldy);

// Y (n × out, row stride ldy) = X (n × in) · W (+ b): W [in, out] (InOut) or [out, in] (OutIn).
// With `accumulate`, Y += X · W (+ b): the residual stream takes a projection in place. The output
// columns are split between the OpenMP threads.
void linear(const float* X, std::int64_t n, std::int64_t in, const float* W, Layout layout, const float* b, std::int64_t out, float* Y,
            std::int64_t ldy, bool accumulate = false);

// GPT-2's "gelu_new" in place.
void gelu(float* x, std::int64_t count);
// gate = silu(gate) ⊙ up, in place: the SiLU-gated MLP's middle.
void silu_gate(float* gate, const float* up, std::int64_t count);

// Grouped causal attention over n queries at positions start … start + n − 1 and m = start + n
// keys at 0 … m − 1. Query head h (columns h·d_head … of q, row stride ldq) reads K/V head
// ⌊h / (n_head / n_kv_head)⌋ of k and v (m rows, strides ldk, ldv): the K/V heads are shared, never
// copied per query head. S = q kᵀ / √d_head; key j is visible from query i when j ≤ start + i and,
// with a window W > 0, start + i − j < W; softmax over the visible keys (row max subtracted).
// out (n × n_head·d_head, stride ldo) = A v. weights[h] (n rows after `start`) receives head h's
// A, when weights is not null.
// The queries run in blocks of kQueryBlock rows, each against the keys its rows see (never those
// above the causal diagonal of its last row).
struct AttentionShape {
  std::int64_t n = 0, start = 0;
  int n_head = 0, n_kv_head = 0, d_head = 0, window = 0;
};
inline constexpr std::int64_t kQueryBlock = 64;
// The (query, key) pairs one head's products run over: QKᵀ and A·V each take 2·d_head FLOPs a pair.
double attention_pairs(const AttentionShape& s);
void attention(const AttentionShape& s, const float* q, std::int64_t ldq, const float* k, std::int64_t ldk, const float* v, std::int64_t ldv,
               CausalWeights* const* weights, float* out, std::int64_t ldo);

// The output logits x · lm_headᵀ (V) for one row x (d), lm_head [V, d] read a chunk of rows at a
// time (an F16 one is never converted whole).
std::vector<float> output_logits(const float* x, std::int64_t d, TensorRef lm_head, std::int64_t V);
// The top `k` of softmax(logits): ids most probable first, ties by lower id, NaN logits ranked last.
std::vector<NextToken> top_tokens(std::vector<float> logits, int k);

}  // namespace attnlab::model::blocks
