// Test helper for train_gradient_test.py and train_cli_test.py.
// - grads: builds a Trainer of FAMILY, optionally runs some steps, draws one batch and writes a
//   safetensors file holding every parameter (its own name), its gradient of the batch's mean
//   loss ("grad.NAME"), the batch ("batch.ids", "batch.in_loss", as F32) and, in the metadata, the
//   loss and the model's config.json.
// - predict: prints instead the trainer's own most probable next token at every position of N
//   held-out-style sequences, as JSON, for comparing with `attnlab model` on the saved folder.
// - blocks: runs each block of decoder_blocks.hpp forward and backward on seeded random inputs
//   with a random gradient of its output, and writes every input, output and gradient as
//   "CASE.NAME" (shapes in the metadata's "CASE" entries), for PyTorch's autograd to check.
// Usage: attnlab_train_tool grads|predict FAMILY TASK LAYERS HEADS KV_HEADS D_MODEL BATCH SEED LENGTH SYMBOLS STEPS OUT
//        attnlab_train_tool blocks SEED OUT
#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/model/decoder_blocks.hpp"
#include "engine/model/families.hpp"
#include "engine/model/safetensors.hpp"
#include "engine/model/trainer.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>
#include <map>
#include <random>
#include <string>

using namespace attnlab;
using namespace attnlab::model;

namespace {

// [SECTION] grads and predict

int grads_or_predict(char** argv) {
  const std::string mode = argv[1];
  TrainConfig c;
  const FamilySpec* family = find_family(argv[2]);
  if (!family) throw InputError(std::string("no family ") + argv[2]);
  c.family = family->family;
  c.task = default_task(argv[3]);
  c.n_layer = std::stoi(argv[4]);
  c.n_head = std::stoi(argv[5]);
  c.n_kv_head = std::stoi(argv[6]);
  c.d_model = std::stoi(argv[7]);
  c.batch = std::stoi(argv[8]);
  c.seed = std::stoull(argv[9]);
  if (std::stoi(argv[10]) > 0) c.task.length = std::stoi(argv[10]);
  if (std::stoi(argv[11]) > 0) c.task.symbols = std::stoi(argv[11]);
  const int steps = std::stoi(argv[12]);
  c.steps = std::max(1, steps);
  const std::string out = argv[13];
  Trainer trainer(c);
  for (int i = 0; i < steps; ++i) trainer.step();
  TaskGenerator gen(trainer.config().task, c.seed + 1000);
  if (mode == "predict") {
    // The saved model's folder and, per sequence, the trainer's argmax after every prefix.
    trainer.save(out, true);
    nlohmann::json j = nlohmann::json::array();
    const TaskBatch b = gen.next(c.batch);
    for (int r = 0; r < b.batch; ++r) {
      std::vector<int> seq(b.ids.begin() + r * b.length, b.ids.begin() + (r + 1) * b.length);
      nlohmann::json preds = nlohmann::json::array();
      for (int n = 1; n <= b.length; ++n) {
        ForwardOptions o;
        o.keep_weights = false;
        o.top_k = 2;
        const ForwardTrace t = trainer.forward(std::vector<int>(seq.begin(), seq.begin() + n), o);
        preds.push_back({{"id", t.next_tokens[0].id}, {"prob", t.next_tokens[0].prob}, {"second", t.next_tokens[1].prob}});
      }
      j.push_back({{"ids", seq}, {"next", preds}});
    }
    std::cout << j.dump() << "\n";
    return 0;
  }
  const TaskBatch b = gen.next(c.batch);
  const double loss = trainer.loss(b);
  const auto grads = trainer.gradients(b);
  const auto params = trainer.parameters();
  std::vector<F32Tensor> tensors;
  for (std::size_t i = 0; i < params.size(); ++i) tensors.push_back({params[i].name, params[i].shape, params[i].values.data()});
  for (std::size_t i = 0; i < params.size(); ++i) tensors.push_back({"grad." + params[i].name, params[i].shape, grads[i].data()});
  std::vector<float> ids(b.ids.begin(), b.ids.end()), in_loss(b.in_loss.begin(), b.in_loss.end());
  tensors.push_back({"batch.ids", {b.batch, b.length}, ids.data()});
  tensors.push_back({"batch.in_loss", {b.batch, b.length - 1}, in_loss.data()});
  const ModelConfig mc = model_config(trainer.config());
  write_file_atomic(out, safetensors_f32_bytes(tensors, {{"loss", nlohmann::json(loss).dump()}, {"config", family->config_json(mc)}}));
  return 0;
}

// [SECTION] blocks

// Every case's tensors by name, and the sizes the PyTorch side needs.
struct Cases {
  std::map<std::string, std::pair<std::vector<std::int64_t>, std::vector<float>>> tensors;
  std::map<std::string, std::string> metadata;
  std::mt19937_64 rng;

  std::vector<float> random(std::int64_t count, double scale, double offset = 0) {
    std::vector<float> v(static_cast<std::size_t>(count));
    for (float& x : v) x = static_cast<float>(offset + scale * (static_cast<double>(rng() >> 11) * 0x1.0p-53 * 2 - 1));
    return v;
  }
  void keep(const std::string& name, std::vector<std::int64_t> shape, std::vector<float> values) {
    tensors[name] = {std::move(shape), std::move(values)};
  }
};

void norm_case(Cases& k, const std::string& name, NormKind kind, std::int64_t n, std::int64_t d) {
  auto x = k.random(n * d, 2.0, 0.3), w = k.random(d, 0.5, 1.0), b = k.random(d, 0.5), dy = k.random(n * d, 1.0);
  std::vector<float> y(x.size()), stats(static_cast<std::size_t>(2 * n)), dx(x.size(), 0.0f), dw(w.size(), 0.0f), db(b.size(), 0.0f);
  const bool layer = kind == NormKind::Layer;
  blocks::norm(kind, x.data(), d, n, d, w.data(), layer ? b.data() : nullptr, 1e-5, y.data(), d, stats.data());
  blocks::norm_backward(kind, dy.data(), x.data(), n, d, stats.data(), w.data(), dx.data(), dw.data(), layer ? db.data() : nullptr);
  k.keep(name + ".x", {n, d}, x), k.keep(name + ".w", {d}, w), k.keep(name + ".y", {n, d}, y), k.keep(name + ".dy", {n, d}, dy);
  k.keep(name + ".dx", {n, d}, dx), k.keep(name + ".dw", {d}, dw);
  if (layer) k.keep(name + ".b", {d}, b), k.keep(name + ".db", {d}, db);
}

void linear_case(Cases& k, const std::string& name, Layout layout, bool bias, std::int64_t n, std::int64_t in, std::int64_t out) {
  auto X = k.random(n * in, 1.0), W = k.random(in * out, 0.5), b = k.random(out, 0.5), dY = k.random(n * out, 1.0);
  std::vector<float> Y(static_cast<std::size_t>(n * out)), dX(X.size()), dW(W.size(), 0.0f), db(b.size(), 0.0f);
  blocks::linear(X.data(), n, in, W.data(), layout, bias ? b.data() : nullptr, out, Y.data(), out);
  blocks::linear_backward(dY.data(), out, X.data(), n, in, W.data(), layout, out, dX.data(), false, dW.data(), bias ? db.data() : nullptr);
  const std::vector<std::int64_t> wshape = layout == Layout::InOut ? std::vector<std::int64_t>{in, out} : std::vector<std::int64_t>{out, in};
  k.keep(name + ".x", {n, in}, X), k.keep(name + ".w", wshape, W), k.keep(name + ".y", {n, out}, Y), k.keep(name + ".dy", {n, out}, dY);
  k.keep(name + ".dx", {n, in}, dX), k.keep(name + ".dw", wshape, dW);
  if (bias) k.keep(name + ".b", {out}, b), k.keep(name + ".db", {out}, db);
}

void activation_cases(Cases& k, std::int64_t n) {
  auto x = k.random(n, 4.0), dy = k.random(n, 1.0);
  std::vector<float> y = x, dx(x.size());
  blocks::gelu(y.data(), n);
  blocks::gelu_backward(x.data(), y.data(), dy.data(), dx.data(), n);
  k.keep("gelu.x", {n}, x), k.keep("gelu.y", {n}, y), k.keep("gelu.dy", {n}, dy), k.keep("gelu.dx", {n}, dx);
  auto gate = k.random(n, 4.0), up = k.random(n, 2.0), dz = k.random(n, 1.0);
  std::vector<float> z = gate, dgate(x.size()), dup(x.size());
  blocks::silu_gate(z.data(), up.data(), n);
  blocks::silu_gate_backward(gate.data(), up.data(), dz.data(), dgate.data(), dup.data(), n);
  k.keep("silu_gate.gate", {n}, gate), k.keep("silu_gate.up", {n}, up), k.keep("silu_gate.y", {n}, z), k.keep("silu_gate.dy", {n}, dz);
  k.keep("silu_gate.dgate", {n}, dgate), k.keep("silu_gate.dup", {n}, dup);
}

// Grouped attention over B sequences of T (H query heads over G K/V heads of width dh), with the
// rotation at each sequence's start when theta > 0: q, k and v side by side in one buffer as the
// decoder lays them out, their gradients likewise.
void attention_case(Cases& k, const std::string& name, int B, int T, int H, int G, int dh, double theta) {
  const std::int64_t qw = H * dh, kvw = G * dh, ld = qw + 2 * kvw, N = std::int64_t{B} * T;
  auto qkv = k.random(N * ld, 1.5), d_out = k.random(N * qw, 1.0);
  std::vector<float> rotated = qkv, out(static_cast<std::size_t>(N * qw)), d_qkv(qkv.size());
  std::vector<int> starts(static_cast<std::size_t>(B));
  for (int& s : starts) s = static_cast<int>(k.rng() % 5);
  std::optional<RopeAngles> angles, back;
  if (theta > 0) {
    std::vector<std::int64_t> all(T + 5);
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = static_cast<std::int64_t>(i);
    angles = rope_angles(rope_frequencies(theta, {}, dh), all.data(), T + 5);
    back = blocks::rope_backward_angles(*angles);
  }
  const auto rotate = [&](float* x, const std::optional<RopeAngles>& by) {
    for (int b = 0; by && b < B; ++b) {
      for (int h = 0; h < H + G; ++h) rope_rotate(*by, starts[static_cast<std::size_t>(b)], x + std::int64_t{b} * T * ld + h * dh, T, ld);
    }
  };
  rotate(rotated.data(), angles);
  std::vector<CausalWeights> weights(static_cast<std::size_t>(B * H), CausalWeights(T, 0));
  std::vector<CausalWeights*> kept;
  for (auto& w : weights) kept.push_back(&w);
  std::vector<const CausalWeights*> read(kept.begin(), kept.end());
  blocks::AttentionShape shape{T, 0, H, G, dh, 0};
  shape.batch = B;
  const float* q = rotated.data();
  blocks::attention(shape, q, ld, q + qw, ld, q + qw + kvw, ld, kept.data(), out.data(), qw);
  float* dq = d_qkv.data();
  blocks::attention_backward(shape, q, q + qw, q + qw + kvw, ld, read.data(), d_out.data(), qw, dq, dq + qw, dq + qw + kvw, ld);
  rotate(d_qkv.data(), back);
  std::vector<float> start_values(starts.begin(), starts.end());
  k.keep(name + ".qkv", {B, T, ld}, qkv), k.keep(name + ".out", {B, T, qw}, out), k.keep(name + ".dout", {B, T, qw}, d_out);
  k.keep(name + ".dqkv", {B, T, ld}, d_qkv), k.keep(name + ".starts", {B}, start_values);
  k.metadata[name] = nlohmann::json({{"heads", H}, {"kv_heads", G}, {"d_head", dh}, {"rope_theta", theta}}).dump();
}

void output_case(Cases& k, std::int64_t n, std::int64_t d, std::int64_t V) {
  auto h = k.random(n * d, 1.5), W = k.random(V * d, 1.0);
  std::vector<int> targets(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < targets.size(); ++i) targets[i] = i % 4 == 3 ? -1 : static_cast<int>(k.rng() % static_cast<std::uint64_t>(V));
  const int counted = static_cast<int>(std::count_if(targets.begin(), targets.end(), [](int t) { return t >= 0; }));
  std::vector<float> logits(static_cast<std::size_t>(n * V)), dh(h.size()), dW(W.size(), 0.0f);
  blocks::linear(h.data(), n, d, W.data(), Layout::OutIn, nullptr, V, logits.data(), V);
  const double loss = blocks::cross_entropy(logits.data(), targets.data(), n, V) / counted;
  blocks::cross_entropy_backward(logits.data(), targets.data(), counted, n, V);
  blocks::linear_backward(logits.data(), V, h.data(), n, d, W.data(), Layout::OutIn, V, dh.data(), false, dW.data(), nullptr);
  k.keep("output.h", {n, d}, h), k.keep("output.w", {V, d}, W), k.keep("output.targets", {n}, std::vector<float>(targets.begin(), targets.end()));
  k.keep("output.dh", {n, d}, dh), k.keep("output.dw", {V, d}, dW);
  k.metadata["output"] = nlohmann::json({{"loss", loss}}).dump();
}

void embed_case(Cases& k, std::int64_t n, std::int64_t d, std::int64_t V, std::int64_t P) {
  const auto dx = k.random(n * d, 1.0);
  std::vector<int> ids(static_cast<std::size_t>(n));
  std::vector<std::int64_t> positions(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = static_cast<int>(k.rng() % static_cast<std::uint64_t>(V));
  for (std::int64_t i = 0; i < n; ++i) positions[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(k.rng() % static_cast<std::uint64_t>(P));
  std::vector<float> dE(static_cast<std::size_t>(V * d), 0.0f), dP(static_cast<std::size_t>(P * d), 0.0f);
  blocks::embed_backward(dx.data(), ids.data(), positions.data(), n, d, dE.data(), dP.data());
  k.keep("embed.ids", {n}, std::vector<float>(ids.begin(), ids.end()));
  k.keep("embed.positions", {n}, std::vector<float>(positions.begin(), positions.end()));
  k.keep("embed.dx", {n, d}, dx), k.keep("embed.dembed", {V, d}, dE), k.keep("embed.dposition", {P, d}, dP);
}

int blocks_case(char** argv) {
  Cases k;
  k.rng.seed(std::stoull(argv[2]));
  norm_case(k, "layernorm", NormKind::Layer, 37, 48);
  norm_case(k, "rmsnorm", NormKind::Rms, 37, 48);
  linear_case(k, "conv1d", Layout::InOut, true, 37, 24, 40);  // GPT-2's, with its bias
  linear_case(k, "linear", Layout::OutIn, false, 37, 24, 40);  // Llama's
  activation_cases(k, 999);
  attention_case(k, "attention", 3, 13, 4, 4, 8, 0);             // GPT-2: every head its own K/V
  attention_case(k, "attention_gqa_rope", 3, 13, 4, 2, 8, 100);  // Llama: two query heads per K/V head, rotated
  output_case(k, 37, 24, 19);
  embed_case(k, 37, 24, 19, 11);
  std::vector<F32Tensor> tensors;
  for (const auto& [name, t] : k.tensors) tensors.push_back({name, t.first, t.second.data()});
  write_file_atomic(argv[3], safetensors_f32_bytes(tensors, k.metadata));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const bool blocks = argc == 4 && std::string(argv[1]) == "blocks";
  if (!blocks && argc != 14) {
    std::cerr << "usage: attnlab_train_tool grads|predict FAMILY TASK LAYERS HEADS KV_HEADS D_MODEL BATCH SEED LENGTH SYMBOLS STEPS OUT\n"
                 "       attnlab_train_tool blocks SEED OUT\n";
    return 2;
  }
  try {
    return blocks ? blocks_case(argv) : grads_or_predict(argv);
  } catch (const std::exception& e) {
    std::cerr << "attnlab_train_tool: " << e.what() << "\n";
    return 2;
  }
}
