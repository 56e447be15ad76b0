// Training over the decoder's own blocks (docs/MODELS.md, "Training"; llm.c's train_gpt2.c is the
// model): the forward of a batch, keeping in one struct what the backward reads, and the backward
// in the reverse order, each step a pair of decoder_blocks.hpp (embed, norm, linear, the rotation,
// grouped attention, GELU or the SiLU gate, the output and its cross-entropy). It runs any family
// the blocks cover: GPT-2 (LayerNorm, learned positions, fused Conv1D q/k/v with biases, GELU, the
// tied output) and Llama (RMSNorm, rotary positions, grouped K/V, SwiGLU, its own output matrix).
// The weights are the DecoderTensors the family's binder finds, as inference binds a folder's; the
// gradients are a buffer laid out as the weights file's data, so each tensor's gradient sits at
// the tensor's own offset (a tied output matrix's gradient is the embedding's).
// Shapes: B sequences of T tokens, N = B·T rows; d = d_model; q, k, v side by side in one
// N × (q_width + 2·kv_width) buffer, K/V heads by offset (never copied per query head).
#pragma once

#include "engine/attention/rope.hpp"
#include "engine/model/causal_weights.hpp"
#include "engine/model/families.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace attnlab::model {

// What a forward keeps for the backward. Sized on first use, reused while B and T stay.
struct TrainActivations {
  struct Layer {
    std::vector<float> h1, stats1;        // N × d: the normed input of attention; N × 2: its rows' mean and 1/σ
    std::vector<float> qkv;               // N × (q_width + 2·kv_width): q and k rotated (RoPE), as the products read them
    std::vector<CausalWeights> weights;   // B × n_head: each sequence's heads' softmax weights
    std::vector<float> attn;              // N × q_width: the heads' outputs side by side
    std::vector<float> x_mid;             // N × d: the residual stream after attention
    std::vector<float> h2, stats2;        // N × d, N × 2: the normed input of the MLP
    std::vector<float> up, gate;          // N × d_ff: the MLP's products before the activation (gate: SwiGLU only)
    std::vector<float> act;               // N × d_ff: gelu(up), or silu(gate) ⊙ up
    std::vector<float> x_out;             // N × d: the residual stream after the MLP
  };
  int B = 0, T = 0;
  std::vector<int> ids, targets;         // N each; a target of −1 is outside the loss
  std::vector<int> starts;               // B: each sequence's first position
  std::vector<std::int64_t> positions;   // N: each row's position
  int counted = 0;                       // targets in the loss
  std::vector<float> x0;                 // N × d: the embeddings (with learned positions)
  std::vector<Layer> layers;
  std::vector<float> hf, stats_f;        // N × d, N × 2: the final norm
  std::vector<float> probs;              // N × V: the logits, then their softmax, then (backward) their gradient
  std::optional<RopeAngles> angles;      // every position 0 … n_ctx − 1 (rotary positions)
  std::optional<RopeAngles> back_angles; // the same turning back: the rotation's backward
  std::vector<float> d_x, d_h, d_qkv, d_attn, d_up, d_gate, d_act;  // the backward's gradients of one layer's activations
};

struct TrainLoss {
  double loss = 0;  // the mean cross-entropy over the positions in the loss
  int counted = 0;  // positions in the loss
};

// Where the gradients are: `count` floats laid out as the weights file's data section.
struct Gradients {
  float* data = nullptr;
  std::size_t count = 0;
  // The gradient of tensor t (of the file the buffer mirrors), or null for an empty ref.
  float* of(TensorRef t) const { return t ? data + t.info->begin / sizeof(float) : nullptr; }
};

// Throws InputError when the config has something the blocks have no backward for (qwen3's q/k
// norms, a sliding window), or weights that are not F32.
void check_trainable(const ModelConfig& c);

// Forward over `ids` (B × T) with `targets` (B × T, −1 where a position is not in the loss), each
// sequence starting at position starts[b] (null: 0). Keeps every activation in `a`; `a.probs`
// ends as the probabilities. The weights must be F32, read where they are.
TrainLoss train_forward(const ModelConfig& c, const DecoderTensors& w, const int* ids, const int* targets, const int* starts, int B,
                        int T, TrainActivations& a);

// The gradients of the mean loss of the last forward over `a`, written (not added) into `g`.
void train_backward(const ModelConfig& c, const DecoderTensors& w, TrainActivations& a, const Gradients& g);

// The bytes of activations a step over B × T keeps (an estimate for the memory check).
std::int64_t train_activation_bytes(const ModelConfig& c, std::int64_t B, std::int64_t T);

}  // namespace attnlab::model
