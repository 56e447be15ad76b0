// GPT-2's forward and backward passes for training (docs/MODELS.md, "Training"), llm.c's layout:
// each layer's forward and backward side by side as plain functions, the activations the backward
// pass reads in one struct, shapes written at the top of each function. Templated on the scalar so
// the same code runs in float (training) and in double (the finite-difference check).
// Shapes: B sequences of T tokens, N = B·T rows; C = d_model, H heads of C/H, V symbols.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab::model {

struct Gpt2Dims {
  int n_layer = 0, n_head = 0, d_model = 0, vocab = 0, positions = 0;
  double eps = 1e-5;
};

// Every tensor of the model, one vector each, in GPT-2's Conv1D layout (weights [in, out]).
template <class S>
struct Gpt2Weights {
  struct Layer {
    std::vector<S> ln_1_w, ln_1_b;            // C, C
    std::vector<S> c_attn_w, c_attn_b;        // C × 3C, 3C
    std::vector<S> attn_proj_w, attn_proj_b;  // C × C, C
    std::vector<S> ln_2_w, ln_2_b;            // C, C
    std::vector<S> c_fc_w, c_fc_b;            // C × 4C, 4C
    std::vector<S> mlp_proj_w, mlp_proj_b;    // 4C × C, C
  };
  std::vector<S> wte, wpe;  // V × C (also the tied output matrix), P × C
  std::vector<Layer> layers;
  std::vector<S> ln_f_w, ln_f_b;  // C, C

  // Sized for `dims`, all zero.
  explicit Gpt2Weights(const Gpt2Dims& dims = {});

  struct Tensor {
    std::string name;  // the safetensors name: "wte.weight", "h.0.attn.c_attn.weight", …
    std::vector<std::int64_t> shape;
    std::vector<S>* values;
  };
  // Every tensor in the order of the file (as Hugging Face writes GPT-2).
  std::vector<Tensor> tensors();
};

// What the forward pass keeps for the backward pass. Sized on first use, reused while B and T stay.
template <class S>
struct Gpt2Activations {
  struct Layer {
    std::vector<S> ln_1, ln_1_mean, ln_1_rstd;  // N × C, N, N
    std::vector<S> qkv;                         // N × 3C
    std::vector<S> att;                         // B × H × T × T, the causal softmax weights
    std::vector<S> atty;                        // N × C, the heads' outputs side by side
    std::vector<S> residual_2;                  // N × C, x after the attention block
    std::vector<S> ln_2, ln_2_mean, ln_2_rstd;  // N × C, N, N
    std::vector<S> fch, fch_gelu;               // N × 4C, before and after the GELU
    std::vector<S> residual_3;                  // N × C, x after the MLP block
  };
  int B = 0, T = 0;
  std::vector<S> encoded;  // N × C: wte[ids] + wpe[t]
  std::vector<Layer> layers;
  std::vector<S> ln_f, ln_f_mean, ln_f_rstd;  // N × C, N, N
  std::vector<S> logits;                      // N × V, then overwritten by the probabilities
  std::vector<int> targets;                   // N: the next token, −1 where the loss skips it
  std::vector<int> positions;                 // N: each token's row of wpe
  int counted = 0;                            // targets that are not −1
  // The backward pass's scratch: gradients of the residual stream and of one layer's activations.
  std::vector<S> d_residual, d_ln, d_qkv, d_atty, d_fch, d_fch_gelu;
};

// The loss of a forward pass over a batch.
struct Gpt2Loss {
  double loss = 0;   // mean cross-entropy over the positions with a target
  int counted = 0;   // positions with a target
};

// Forward over `ids` (B × T) with `targets` (B × T, −1 where a position is not in the loss) and
// each token's position (B × T rows of wpe; null: 0 … T−1 in every sequence).
// Keeps every activation in `acts`; `acts.logits` ends as the probabilities. Runs the batch ×
// heads attention and the row blocks of every product in parallel (OpenMP), each output written by
// one thread in a fixed order, so the result does not depend on thread timing.
template <class S>
Gpt2Loss gpt2_train_forward(const Gpt2Dims& dims, const Gpt2Weights<S>& w, const int* ids, const int* targets, int B, int T,
                            Gpt2Activations<S>& acts, const int* positions = nullptr);

// The gradients of the mean loss of the last forward pass, written (not added) into `grads`.
template <class S>
void gpt2_train_backward(const Gpt2Dims& dims, const Gpt2Weights<S>& w, const int* ids, Gpt2Activations<S>& acts, Gpt2Weights<S>& grads);

// The dimensions' parameter count, and the bytes of activations a step over B × T needs.
std::int64_t gpt2_parameter_count(const Gpt2Dims& dims);
std::int64_t gpt2_activation_bytes(const Gpt2Dims& dims, std::int64_t B, std::int64_t T);

}  // namespace attnlab::model
