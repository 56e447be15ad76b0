// GPT-2 as a family (docs/MODELS.md, "Tensors"): its config.json through the GPT-2 reader, and its
// tensors with or without the `transformer.` prefix, in the Conv1D layout (y = x·W + b, W [in,
// out]), q, k and v fused in c_attn, learned positions, LayerNorm, the tanh-GELU MLP, the output
// tied to wte. Attention Lab's own toy models are GPT-2s with an "attnlab_task".
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/gpt2_config.hpp"

#include <cstdlib>

namespace attnlab::model {

ModelConfig read_gpt2_config(std::string_view json_text, const std::string& source) {
  const Gpt2Config g = parse_gpt2_config(json_text, source);
  ModelConfig c;
  c.family = g.is_toy() ? "attnlab-toy" : "gpt2";
  c.n_layer = g.n_layer;
  c.n_head = c.n_kv_head = g.n_head;
  c.d_model = g.n_embd;
  c.d_head = g.d_head();
  c.d_ff = 4 * g.n_embd;
  c.n_ctx = g.n_positions;
  c.vocab_size = g.vocab_size;
  c.norm_eps = g.layer_norm_epsilon;
  c.norm = NormKind::Layer;
  c.ffn = FfnKind::Gelu;
  c.positions = PositionKind::Learned;
  c.fused_qkv = true;
  c.qkv_bias = c.o_bias = c.mlp_bias = c.norm_bias = true;
  c.tied = true;
  c.task_json = g.task_json;
  return c;
}

namespace {

// A name the file may hold beside the model's own tensors: a copy of the tied output matrix, or
// the causal-mask buffers (h.N.attn.bias, h.N.attn.masked_bias) of older exports.
bool ignorable(const std::string& rest, int n_layer) {
  if (rest == "lm_head.weight") return true;
  if (rest.rfind("h.", 0) != 0) return false;
  const std::size_t dot = rest.find('.', 2);
  if (dot == std::string::npos || dot == 2 || rest.find_first_not_of("0123456789", 2) != dot) return false;
  const std::string tail = rest.substr(dot + 1);
  return std::strtol(rest.c_str() + 2, nullptr, 10) < n_layer && (tail == "attn.bias" || tail == "attn.masked_bias");
}

}  // namespace

DecoderTensors bind_gpt2_tensors(const ModelConfig& c, const WeightFiles& files) {
  const std::string prefix = files.find("transformer.wte.weight") ? "transformer." : "";
  const std::int64_t d = c.d_model, V = c.vocab_size, P = c.n_ctx;
  TensorBinder b(files, "n_embd " + std::to_string(d) + ", vocab_size " + std::to_string(V) + ", n_positions " + std::to_string(P));
  const std::string why = "config.json has " + std::to_string(c.n_layer) + " layers of width " + std::to_string(d);
  const auto need = [&](const std::string& name, std::vector<std::int64_t> shape) { return b.need(prefix + name, shape, why); };
  const auto conv1d = [&](const std::string& name, std::int64_t in, std::int64_t out) {
    return LinearRef{need(name + ".weight", {in, out}), need(name + ".bias", {out}), Layout::InOut};
  };
  DecoderTensors t;
  t.embed = need("wte.weight", {V, d});
  t.position = need("wpe.weight", {P, d});
  t.final_norm = {need("ln_f.weight", {d}), need("ln_f.bias", {d})};
  t.lm_head = t.embed;
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    LayerTensors L;
    L.attn_norm = {need(h + "ln_1.weight", {d}), need(h + "ln_1.bias", {d})};
    L.qkv = conv1d(h + "attn.c_attn", d, 3 * d);
    L.o = conv1d(h + "attn.c_proj", d, d);
    L.ffn_norm = {need(h + "ln_2.weight", {d}), need(h + "ln_2.bias", {d})};
    L.up = conv1d(h + "mlp.c_fc", d, 4 * d);
    L.down = conv1d(h + "mlp.c_proj", 4 * d, d);
    t.layers.push_back(L);
  }
  // Anything else is a mistake: a model with more layers than its config says, another
  // architecture.
  for (const auto& [name, ref] : files.tensors()) {
    const std::string rest = name.compare(0, prefix.size(), prefix) == 0 ? name.substr(prefix.size()) : name;
    if (ignorable(rest, c.n_layer) || name == "lm_head.weight") b.ignore(name);
  }
  if (const std::string extra = b.unused(); !extra.empty()) {
    throw InputError(files.find(extra).file->path().string() + ": tensor '" + extra + "' is not part of a GPT-2 with " +
                     std::to_string(c.n_layer) + " layers (does config.json belong to these weights?)");
  }
  return t;
}

}  // namespace attnlab::model
