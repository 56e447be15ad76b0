// GPT-2 as a family (docs/MODELS.md, "Tensors"): its config.json, and its tensors with or without
// the `transformer.` prefix, in the Conv1D layout (y = x·W + b, W [in, out]), q, k and v fused in
// c_attn, learned positions, LayerNorm, the tanh-GELU MLP, the output tied to wte; and the files
// of a GPT-2 the trainer writes (Attention Lab's toy models, with an "attnlab_task").
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/config_fields.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace attnlab::model {

ModelConfig read_gpt2_config(const nlohmann::json& j, const FamilySpec&, const std::string& src) {
  using namespace fields;
  ModelConfig c;
  // Limits far above GPT-2 XL (48 layers, 25 heads, 1600 wide, 1024 positions, 50 257 tokens)
  // that still keep every product of sizes inside 64 bits. Hugging Face's newer names are
  // accepted for the older ones.
  c.n_layer = whole(j, either(j, "n_layer", "num_hidden_layers"), 1, 1024, src);
  c.n_head = c.n_kv_head = whole(j, either(j, "n_head", "num_attention_heads"), 1, 1024, src);
  c.d_model = whole(j, either(j, "n_embd", "hidden_size"), 1, 1 << 16, src);
  c.n_ctx = whole(j, either(j, "n_positions", "n_ctx"), 1, 1 << 20, src);
  c.vocab_size = whole(j, "vocab_size", 1, 1 << 22, src);
  if (c.d_model % c.n_head != 0) {
    throw InputError(src + ": \"n_embd\" " + std::to_string(c.d_model) + " is not divisible by \"n_head\" " + std::to_string(c.n_head) +
                     ", so the heads cannot share it equally");
  }
  c.norm_eps = number_or(j, "layer_norm_epsilon", 1e-5, 1, src);
  if (!absent(j, "activation_function")) {
    const auto& a = j["activation_function"];
    if (!a.is_string() || a.get<std::string>() != "gelu_new") {
      throw InputError(src + ": \"activation_function\" is " + a.dump() + "; Attention Lab runs GPT-2's \"gelu_new\" (the tanh GELU)");
    }
  }
  c.d_head = c.d_model / c.n_head;
  c.d_ff = 4 * c.d_model;
  c.norm = NormKind::Layer;
  c.ffn = FfnKind::Gelu;
  c.positions = PositionKind::Learned;
  c.fused_qkv = true;
  c.qkv_bias = c.o_bias = c.mlp_bias = c.norm_bias = true;
  c.tied = true;
  return c;
}

std::vector<TensorSpec> gpt2_tensor_layout(const ModelConfig& c) {
  const std::int64_t d = c.d_model;
  std::vector<TensorSpec> out = {{"wte.weight", {c.vocab_size, d}}, {"wpe.weight", {c.n_ctx, d}}};
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    const std::pair<const char*, std::vector<std::int64_t>> layer[] = {
        {"ln_1.weight", {d}},         {"ln_1.bias", {d}},        {"attn.c_attn.weight", {d, 3 * d}}, {"attn.c_attn.bias", {3 * d}},
        {"attn.c_proj.weight", {d, d}}, {"attn.c_proj.bias", {d}}, {"ln_2.weight", {d}},               {"ln_2.bias", {d}},
        {"mlp.c_fc.weight", {d, 4 * d}}, {"mlp.c_fc.bias", {4 * d}}, {"mlp.c_proj.weight", {4 * d, d}}, {"mlp.c_proj.bias", {d}}};
    for (const auto& [name, shape] : layer) out.push_back({h + name, shape});
  }
  out.push_back({"ln_f.weight", {d}});
  out.push_back({"ln_f.bias", {d}});
  return out;
}

std::string gpt2_config_json(const ModelConfig& c) {
  const auto field = [](const char* name, const std::string& value) { return ",\n  \"" + std::string(name) + "\": " + value; };
  return "{\n  \"model_type\": \"" + std::string(family_spec(c.family).model_type) + "\"" +
         field("architectures", "[\"GPT2LMHeadModel\"]") + field("activation_function", "\"gelu_new\"") +
         field("n_layer", std::to_string(c.n_layer)) + field("n_head", std::to_string(c.n_head)) + field("n_embd", std::to_string(c.d_model)) +
         field("n_positions", std::to_string(c.n_ctx)) + field("n_ctx", std::to_string(c.n_ctx)) +
         field("vocab_size", std::to_string(c.vocab_size)) + field("layer_norm_epsilon", nlohmann::json(c.norm_eps).dump()) +
         (c.is_toy() ? field("attnlab_task", c.task_json) : std::string()) + "\n}\n";
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
