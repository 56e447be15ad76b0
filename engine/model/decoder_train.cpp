// Training's forward and backward over the decoder's blocks; see decoder_train.hpp. A page of
// composition, as decoder_forward.cpp is for inference: per layer x_mid = x + o(attention(qkv(
// norm(x)))) with the rotation where the family has it, x_out = x_mid + mlp(norm(x_mid)); then the
// final norm, the output matrix and the cross-entropy. The backward runs the blocks' pairs in the
// reverse order, the residual stream's gradient in d_x.
//
// [SECTION] sizes and weights
// [SECTION] the forward
// [SECTION] the backward
#include "engine/model/decoder_train.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/decoder_blocks.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace attnlab::model {

namespace {

using I = std::int64_t;

// -------------------------------------------------------------------------------------------------
// [SECTION] sizes and weights
// -------------------------------------------------------------------------------------------------

// A weight's floats where they are (training's weights are F32, in the trainer's own buffer).
const float* f(TensorRef t) {
  if (!t) return nullptr;
  if (t.info->type != TensorType::F32) throw InputError(t.info->name + ": training reads F32 weights");
  const std::byte* at = t.file->data(*t.info);
  if (reinterpret_cast<std::uintptr_t>(at) % alignof(float) != 0) throw std::logic_error("train_forward: weights not float-aligned");
  return reinterpret_cast<const float*>(at);
}

void sized(std::vector<float>& v, I n) { v.assign(static_cast<std::size_t>(n), 0.0f); }

// The buffers of a B × T step, made when B or T change.
void size_activations(const ModelConfig& c, int B, int T, TrainActivations& a) {
  if (a.B == B && a.T == T && a.layers.size() == static_cast<std::size_t>(c.n_layer)) return;
  const I N = I{B} * T, d = c.d_model, ld = c.q_width() + 2 * c.kv_width(), ff = c.d_ff;
  a.B = B, a.T = T;
  sized(a.x0, N * d);
  a.layers.assign(static_cast<std::size_t>(c.n_layer), {});
  for (auto& L : a.layers) {
    for (auto* v : {&L.h1, &L.x_mid, &L.h2, &L.x_out}) sized(*v, N * d);
    sized(L.stats1, 2 * N), sized(L.stats2, 2 * N), sized(L.qkv, N * ld), sized(L.attn, N * c.q_width());
    sized(L.up, N * ff), sized(L.act, N * ff);
    if (c.ffn == FfnKind::SiluGated) sized(L.gate, N * ff);
    L.weights.assign(static_cast<std::size_t>(B) * static_cast<std::size_t>(c.n_head), CausalWeights(T, 0));
  }
  sized(a.hf, N * d), sized(a.stats_f, 2 * N), sized(a.probs, N * c.vocab_size);
  sized(a.d_x, N * d), sized(a.d_h, N * d), sized(a.d_qkv, N * ld), sized(a.d_attn, N * c.q_width());
  sized(a.d_up, N * ff), sized(a.d_act, N * ff);
  if (c.ffn == FfnKind::SiluGated) sized(a.d_gate, N * ff);
}

// Each sequence's q and k heads (v is not rotated) turned by `angles`, sequence b's T rows from
// position starts[b]: the rotation forward, or with the backward's angles, back.
void rotate_heads(const ModelConfig& c, const TrainActivations& a, const RopeAngles& angles, float* qkv, I ld) {
  const I dh = c.d_head, heads = I{c.n_head} + c.n_kv_head;
  for (int b = 0; b < a.B; ++b) {
    float* rows = qkv + I{b} * a.T * ld;
    for (I h = 0; h < heads; ++h) rope_rotate(angles, a.starts[static_cast<std::size_t>(b)], rows + h * dh, a.T, ld);
  }
}

blocks::AttentionShape attention_shape(const ModelConfig& c, const TrainActivations& a) {
  blocks::AttentionShape s{a.T, 0, c.n_head, c.n_kv_head, c.d_head, 0};
  s.batch = a.B;
  return s;
}

}  // namespace

void check_trainable(const ModelConfig& c) {
  const std::string family = family_name(c);
  if (c.qk_norm) throw InputError("training a " + family + " model: its q/k norms have no backward here");
  if (c.sliding_window) throw InputError("training a " + family + " model: its sliding window has no backward here");
  if (c.d_head % 2 != 0 && c.positions == PositionKind::Rope) throw InputError("training: rotary positions need an even head width");
}

std::int64_t train_activation_bytes(const ModelConfig& c, std::int64_t B, std::int64_t T) {
  const I N = B * T, d = c.d_model, ld = c.q_width() + 2 * c.kv_width(), ff = c.d_ff, mlp = c.ffn == FfnKind::SiluGated ? 3 : 2;
  const I layer = N * (4 * d + 4 + ld + c.q_width() + mlp * ff) + B * c.n_head * T * (T + 1) / 2;
  const I floats = c.n_layer * layer + N * (3 * d + 2 + c.vocab_size) + N * (2 * d + ld + c.q_width() + mlp * ff);
  return floats * static_cast<I>(sizeof(float)) + N * static_cast<I>(2 * sizeof(int) + sizeof(std::int64_t));
}

// -------------------------------------------------------------------------------------------------
// [SECTION] the forward
// -------------------------------------------------------------------------------------------------

namespace {

// x_out = x_mid + mlp(norm(x_mid)) with x_mid = x + o(attention(qkv(norm(x)))), keeping each step.
void layer_forward(const ModelConfig& c, const LayerTensors& t, TrainActivations& a, TrainActivations::Layer& L, const float* x) {
  const I N = I{a.B} * a.T, d = c.d_model, qw = c.q_width(), kvw = c.kv_width(), ld = qw + 2 * kvw, ff = c.d_ff;
  const auto project = [&](const float* X, I in, const LinearRef& p, I out, float* Y, I ldy, bool accumulate = false) {
    blocks::linear(X, N, in, f(p.w), p.layout, f(p.b), out, Y, ldy, accumulate);
  };
  // Attention.
  blocks::norm(c.norm, x, d, N, d, f(t.attn_norm.w), f(t.attn_norm.b), c.norm_eps, L.h1.data(), d, L.stats1.data());
  float* q = L.qkv.data();
  if (c.fused_qkv) {
    project(L.h1.data(), d, t.qkv, ld, q, ld);
  } else {
    project(L.h1.data(), d, t.q, qw, q, ld);
    project(L.h1.data(), d, t.k, kvw, q + qw, ld);
    project(L.h1.data(), d, t.v, kvw, q + qw + kvw, ld);
  }
  if (a.angles) rotate_heads(c, a, *a.angles, q, ld);
  std::vector<CausalWeights*> kept;
  for (auto& w : L.weights) kept.push_back(&w);
  blocks::attention(attention_shape(c, a), q, ld, q + qw, ld, q + qw + kvw, ld, kept.data(), L.attn.data(), qw);
  std::copy_n(x, N * d, L.x_mid.data());
  project(L.attn.data(), qw, t.o, d, L.x_mid.data(), d, true);
  // The MLP: SiLU-gated, or GPT-2's GELU; the activation's input kept apart from its output.
  blocks::norm(c.norm, L.x_mid.data(), d, N, d, f(t.ffn_norm.w), f(t.ffn_norm.b), c.norm_eps, L.h2.data(), d, L.stats2.data());
  project(L.h2.data(), d, t.up, ff, L.up.data(), ff);
  if (c.ffn == FfnKind::SiluGated) {
    project(L.h2.data(), d, t.gate, ff, L.gate.data(), ff);
    L.act = L.gate;
    blocks::silu_gate(L.act.data(), L.up.data(), N * ff);
  } else {
    L.act = L.up;
    blocks::gelu(L.act.data(), N * ff);
  }
  std::copy_n(L.x_mid.data(), N * d, L.x_out.data());
  project(L.act.data(), ff, t.down, d, L.x_out.data(), d, true);
}

}  // namespace

TrainLoss train_forward(const ModelConfig& c, const DecoderTensors& w, const int* ids, const int* targets, const int* starts, int B,
                        int T, TrainActivations& a) {
  check_trainable(c);
  size_activations(c, B, T, a);
  const I N = I{B} * T, d = c.d_model;
  a.ids.assign(ids, ids + N);
  a.targets.assign(targets, targets + N);
  a.counted = static_cast<int>(std::count_if(targets, targets + N, [](int t) { return t >= 0; }));
  a.starts.assign(static_cast<std::size_t>(B), 0);
  if (starts) std::copy_n(starts, B, a.starts.begin());
  a.positions.resize(static_cast<std::size_t>(N));
  for (I i = 0; i < N; ++i) a.positions[static_cast<std::size_t>(i)] = a.starts[static_cast<std::size_t>(i / T)] + i % T;
  if (c.positions == PositionKind::Rope && !a.angles) {
    std::vector<std::int64_t> all(static_cast<std::size_t>(c.n_ctx));
    std::iota(all.begin(), all.end(), 0);
    a.angles = rope_angles(rope_frequencies(c.rope_theta, c.rope_scaling, c.d_head), all.data(), c.n_ctx);
    a.back_angles = blocks::rope_backward_angles(*a.angles);
  }

  blocks::embed(w.embed, w.position, ids, a.positions.data(), N, d, a.x0.data());
  const float* x = a.x0.data();
  for (std::size_t l = 0; l < a.layers.size(); ++l) {
    layer_forward(c, w.layers[l], a, a.layers[l], x);
    x = a.layers[l].x_out.data();
  }
  blocks::norm(c.norm, x, d, N, d, f(w.final_norm.w), f(w.final_norm.b), c.norm_eps, a.hf.data(), d, a.stats_f.data());
  blocks::linear(a.hf.data(), N, d, f(w.lm_head), Layout::OutIn, nullptr, c.vocab_size, a.probs.data(), c.vocab_size);
  const double total = blocks::cross_entropy(a.probs.data(), targets, N, c.vocab_size);
  return {a.counted > 0 ? total / a.counted : 0.0, a.counted};
}

// -------------------------------------------------------------------------------------------------
// [SECTION] the backward
// -------------------------------------------------------------------------------------------------

namespace {

// d_x holds the gradient of the layer's output; on return, of its input x.
void layer_backward(const ModelConfig& c, const LayerTensors& t, TrainActivations& a, const TrainActivations::Layer& L, const float* x,
                    const Gradients& g) {
  const I N = I{a.B} * a.T, d = c.d_model, qw = c.q_width(), kvw = c.kv_width(), ld = qw + 2 * kvw, ff = c.d_ff;
  // dX of a projection into `dX` (added with `accumulate`), its weight's and bias's gradients into g.
  const auto back = [&](const float* dY, I lddy, const float* X, I in, const LinearRef& p, I out, float* dX, bool accumulate = false) {
    blocks::linear_backward(dY, lddy, X, N, in, f(p.w), p.layout, out, dX, accumulate, g.of(p.w), g.of(p.b));
  };
  // The MLP: x_out = x_mid + down(act).
  back(a.d_x.data(), d, L.act.data(), ff, t.down, d, a.d_act.data());
  if (c.ffn == FfnKind::SiluGated) {
    blocks::silu_gate_backward(L.gate.data(), L.up.data(), a.d_act.data(), a.d_gate.data(), a.d_up.data(), N * ff);
    back(a.d_gate.data(), ff, L.h2.data(), d, t.gate, ff, a.d_h.data());
    back(a.d_up.data(), ff, L.h2.data(), d, t.up, ff, a.d_h.data(), true);
  } else {
    blocks::gelu_backward(L.up.data(), L.act.data(), a.d_act.data(), a.d_up.data(), N * ff);
    back(a.d_up.data(), ff, L.h2.data(), d, t.up, ff, a.d_h.data());
  }
  blocks::norm_backward(c.norm, a.d_h.data(), L.x_mid.data(), N, d, L.stats2.data(), f(t.ffn_norm.w), a.d_x.data(), g.of(t.ffn_norm.w),
                        g.of(t.ffn_norm.b));
  // Attention: x_mid = x + o(attention).
  back(a.d_x.data(), d, L.attn.data(), qw, t.o, d, a.d_attn.data());
  std::vector<const CausalWeights*> kept;
  for (const auto& w : L.weights) kept.push_back(&w);
  const float* q = L.qkv.data();
  float* dq = a.d_qkv.data();
  blocks::attention_backward(attention_shape(c, a), q, q + qw, q + qw + kvw, ld, kept.data(), a.d_attn.data(), qw, dq, dq + qw,
                             dq + qw + kvw, ld);
  if (a.angles) rotate_heads(c, a, *a.back_angles, dq, ld);
  if (c.fused_qkv) {
    back(dq, ld, L.h1.data(), d, t.qkv, ld, a.d_h.data());
  } else {
    back(dq, ld, L.h1.data(), d, t.q, qw, a.d_h.data());
    back(dq + qw, ld, L.h1.data(), d, t.k, kvw, a.d_h.data(), true);
    back(dq + qw + kvw, ld, L.h1.data(), d, t.v, kvw, a.d_h.data(), true);
  }
  blocks::norm_backward(c.norm, a.d_h.data(), x, N, d, L.stats1.data(), f(t.attn_norm.w), a.d_x.data(), g.of(t.attn_norm.w),
                        g.of(t.attn_norm.b));
}

}  // namespace

void train_backward(const ModelConfig& c, const DecoderTensors& w, TrainActivations& a, const Gradients& g) {
  const I N = I{a.B} * a.T, d = c.d_model, V = c.vocab_size;
  std::fill_n(g.data, g.count, 0.0f);
  // The output: the logits' gradient in place of the probabilities, then through the output
  // matrix (the embedding's own gradient when tied) and the final norm into the residual stream.
  blocks::cross_entropy_backward(a.probs.data(), a.targets.data(), a.counted, N, V);
  blocks::linear_backward(a.probs.data(), V, a.hf.data(), N, d, f(w.lm_head), Layout::OutIn, V, a.d_h.data(), false, g.of(w.lm_head),
                          nullptr);
  const float* x_last = a.layers.empty() ? a.x0.data() : a.layers.back().x_out.data();
  std::fill(a.d_x.begin(), a.d_x.end(), 0.0f);
  blocks::norm_backward(c.norm, a.d_h.data(), x_last, N, d, a.stats_f.data(), f(w.final_norm.w), a.d_x.data(), g.of(w.final_norm.w),
                        g.of(w.final_norm.b));
  for (std::size_t l = a.layers.size(); l-- > 0;) {
    const float* x = l == 0 ? a.x0.data() : a.layers[l - 1].x_out.data();
    layer_backward(c, w.layers[l], a, a.layers[l], x, g);
  }
  blocks::embed_backward(a.d_x.data(), a.ids.data(), a.positions.data(), N, d, g.of(w.embed), g.of(w.position));
}

}  // namespace attnlab::model
