// The blocks every family's forward is composed of (llama.cpp's build_norm, build_qkv, rope,
// build_attn, build_ffn): float32 on row-major rows with explicit strides, OpenMP around
// single-threaded OpenBLAS products. Weights come straight from the mapped files (families.hpp).
// Each block's backward sits beside its forward (llm.c's pairs), for training over these same
// blocks (decoder_train.cpp): a backward writes its input's gradient (or adds to it where it
// says so) and adds to its weights' gradients, every sum over rows in a fixed order, so that a
// step gives the same numbers on every run with the same threads.
#pragma once

#include "engine/attention/rope.hpp"
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

// x (n × d) = embed[ids[i]] (+ position[positions[i]] when `position` is given: learned
// positions), rows of an F16 or BF16 table converted as they are read.
void embed(TensorRef embed, TensorRef position, const int* ids, const std::int64_t* positions, std::int64_t n, std::int64_t d, float* x);
// d_embed (V × d) += dx (n × d) at each token's row, d_position (P × d, null: none) += dx at each
// position's row. One thread: rows are shared by every position holding the same token.
void embed_backward(const float* dx, const int* ids, const std::int64_t* positions, std::int64_t n, std::int64_t d, float* d_embed,
                    float* d_position);

// y (n × d, row stride ldy) = norm(x) (n × d, row stride ldx) · w (+ b): LayerNorm (mean and
// biased variance, b given) or RMSNorm (x·(mean(x²) + ε)^(−½), b null), accumulated in double.
// `stats` (n × 2, when given) receives each row's mean (0 for RMSNorm) and 1/σ for the backward.
void norm(NormKind kind, const float* x, std::int64_t ldx, std::int64_t n, std::int64_t d, const float* w, const float* b, double eps,
          float* y, std::int64_t ldy, float* stats = nullptr);
// The norm's gradients, rows of d contiguous: dx (n × d) += through the normalization from dy
// (n × d); dw (d) += Σ_rows dy·x̂ and db (d, null for RMSNorm) += Σ_rows dy, where x̂ = (x − mean)/σ.
void norm_backward(NormKind kind, const float* dy, const float* x, std::int64_t n, std::int64_t d, const float* stats, const float* w,
                   float* dx, float* dw, float* db);

// Y (n × out, row stride ldy) = X (n × in) · W (+ b): W [in, out] (InOut) or [out, in] (OutIn).
// With `accumulate`, Y += X · W (+ b): the residual stream takes a projection in place. The output
// columns are split between the OpenMP threads.
void linear(const float* X, std::int64_t n, std::int64_t in, const float* W, Layout layout, const float* b, std::int64_t out, float* Y,
            std::int64_t ldy, bool accumulate = false);

// Columns [0, cols) of Y (n rows, stride ldy) are heads of `width` columns that a GGUF file of the
// llama architecture interleaved for GGML's rotation (column 2i + j of a head is Hugging Face's
// column j·width/2 + i): put back in Hugging Face's order, in place.
void deinterleave_heads(float* Y, std::int64_t n, std::int64_t cols, std::int64_t ldy, int width);

// The gradients of Y = X·W (+ b), X n × in (contiguous), dY n × out (row stride lddy): dX (n × in)
// = dY·Wᵀ (added to it with `accumulate_dx`; skipped when null), dW (W's shape and layout) += the
// product's, db (out, when given) += Σ_rows dY. The rows of dX and the columns of dW are split
// between the threads.
void linear_backward(const float* dY, std::int64_t lddy, const float* X, std::int64_t n, std::int64_t in, const float* W, Layout layout,
                     std::int64_t out, float* dX, bool accumulate_dx, float* dW, float* db);

// GPT-2's "gelu_new" in place.
void gelu(float* x, std::int64_t count);
// dx = dy · gelu′(x), x the GELU's input and y its output (gelu.hpp's derivative_from_value: no
// exponential computed again), `count` elements.
void gelu_backward(const float* x, const float* y, const float* dy, float* dx, std::int64_t count);
// gate = silu(gate) ⊙ up, in place: the SiLU-gated MLP's middle.
void silu_gate(float* gate, const float* up, std::int64_t count);
// From the gate's and up's values before silu_gate and dy (its output's gradient): d_gate =
// dy·up·silu′(gate), d_up = dy·silu(gate), written.
void silu_gate_backward(const float* gate, const float* up, const float* dy, float* d_gate, float* d_up, std::int64_t count);

// The rotation's backward (attention/rope.hpp's rope_rotate is its forward) is the rotation by −a,
// its transpose and inverse: rope_rotate over these angles, the sines negated.
RopeAngles rope_backward_angles(RopeAngles angles);

// Grouped causal attention over n queries at positions start … start + n − 1 and m = start + n
// keys at 0 … m − 1. Query head h (columns h·d_head … of q, row stride ldq) reads K/V head
// ⌊h / (n_head / n_kv_head)⌋ of k and v (m rows, strides ldk, ldv): the K/V heads are shared, never
// copied per query head. S = q kᵀ / √d_head; key j is visible from query i when j ≤ start + i and,
// with a window W > 0, start + i − j < W; softmax over the visible keys (row max subtracted).
// out (n × n_head·d_head, stride ldo) = A v. weights[h] (n rows after `start`) receives head h's
// A, when weights is not null.
// The queries run in blocks of kQueryBlock rows, each against the keys its rows see (never those
// above the causal diagonal of its last row). With batch B > 1 (training; start 0), the rows are
// B sequences of n one after the other, each attending only within itself, and weights[b·n_head
// + h] receives sequence b's head h.
struct AttentionShape {
  std::int64_t n = 0, start = 0;
  int n_head = 0, n_kv_head = 0, d_head = 0, window = 0;
  int batch = 1;
};
inline constexpr std::int64_t kQueryBlock = 64;
// The (query, key) pairs one head's products run over: QKᵀ and A·V each take 2·d_head FLOPs a pair.
double attention_pairs(const AttentionShape& s);
void attention(const AttentionShape& s, const float* q, std::int64_t ldq, const float* k, std::int64_t ldk, const float* v, std::int64_t ldv,
               CausalWeights* const* weights, float* out, std::int64_t ldo);
// attention's gradients (start 0), over the batch: q, k (both rotated, as the products read them)
// and v with row stride ld, the weights the forward kept, and d_out (B·n × n_head·d_head, stride
// ldo). Writes dq (each query head's), dk and dv (each K/V head's: the sum over the query heads of
// its group, added by one thread in head order) with row stride ldd. One task per sequence and
// K/V head.
void attention_backward(const AttentionShape& s, const float* q, const float* k, const float* v, std::int64_t ld,
                        const CausalWeights* const* weights, const float* d_out, std::int64_t ldo, float* dq, float* dk, float* dv,
                        std::int64_t ldd);

// The output logits x · lm_headᵀ (V) for one row x (d), lm_head [V, d] of any tensor type read a few
// rows at a time (weight_products.hpp: never converted whole).
std::vector<float> output_logits(const float* x, std::int64_t d, TensorRef lm_head, std::int64_t V);
// The top `k` of softmax(logits): ids most probable first, ties by lower id, NaN logits ranked last.
std::vector<NextToken> top_tokens(std::vector<float> logits, int k);

// Training's loss over n rows of V logits: each row softmaxed in place (the row max subtracted, the
// sum in double); returns Σ −log p[target] over the rows whose target is not −1, each row's term in
// double and the rows summed in order.
double cross_entropy(float* logits, const int* targets, std::int64_t n, std::int64_t V);
// From those probabilities: the gradient of the mean loss over `counted` rows with respect to the
// logits, in place: (p − onehot(target)) / counted on a row in the loss, 0 on any other.
void cross_entropy_backward(float* probs, const int* targets, int counted, std::int64_t n, std::int64_t V);

}  // namespace attnlab::model::blocks
