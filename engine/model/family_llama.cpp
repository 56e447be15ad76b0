// Llama, Mistral, Qwen2 and Qwen3 (docs/MODELS.md, "The families"): one config reader
// and one tensor binder, with what tells the four apart in a table. Each is RMSNorm, rotary
// positions, grouped K/V heads and the SiLU-gated MLP, Linear weights [out, in] (y = x·Wᵀ + b).
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/config_fields.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace attnlab::model {

namespace {

using nlohmann::json;
using namespace fields;

enum class Window {
  None,                // llama: every layer sees every earlier position
  WhenGiven,           // mistral: "sliding_window" applies unless null
  WhenUseSlidingWindow // qwen2, qwen3: only with "use_sliding_window", from "max_window_layers" on
};

struct Traits {
  bool qkv_bias_always;     // qwen2: q, k and v carry biases whatever the config says
  bool has_attention_bias;  // "attention_bias" adds q, k, v and o biases (llama, qwen3)
  bool has_mlp_bias;        // "mlp_bias" adds gate, up and down biases (llama)
  bool qk_norm;             // qwen3
  Window window;
};

// What tells the four apart, by the family's row (families.cpp).
Traits traits_of(Family family) {
  switch (family) {
    case Family::Llama: return {false, true, true, false, Window::None};
    case Family::Mistral: return {false, false, false, false, Window::WhenGiven};
    case Family::Qwen2: return {true, false, false, false, Window::WhenUseSlidingWindow};
    case Family::Qwen3: return {false, true, false, true, Window::WhenUseSlidingWindow};
    case Family::Gpt2: break;
  }
  throw std::logic_error("read_llama_config: not a llama-like family");
}

void read_sizes(const json& j, const std::string& src, ModelConfig& c) {
  // Limits far above today's models that keep every product of sizes inside 64 bits.
  c.n_layer = whole(j, "num_hidden_layers", 1, 1024, src);
  c.n_head = whole(j, "num_attention_heads", 1, 1024, src);
  c.n_kv_head = whole_or(j, "num_key_value_heads", c.n_head, 1, 1024, src);
  c.d_model = whole(j, "hidden_size", 1, 1 << 16, src);
  c.d_ff = whole(j, "intermediate_size", 1, 1 << 20, src);
  c.n_ctx = whole(j, "max_position_embeddings", 1, 1 << 24, src);
  c.vocab_size = whole(j, "vocab_size", 1, 1 << 22, src);
  if (c.n_head % c.n_kv_head != 0) {
    throw InputError(src + ": \"num_attention_heads\" " + std::to_string(c.n_head) + " is not a multiple of \"num_key_value_heads\" " +
                     std::to_string(c.n_kv_head) + ", so the query heads cannot share the K/V heads in equal groups");
  }
  if (absent(j, "head_dim")) {
    if (c.d_model % c.n_head != 0) {
      throw InputError(src + ": \"hidden_size\" " + std::to_string(c.d_model) + " is not \"num_attention_heads\" " + std::to_string(c.n_head) +
                       " times a whole head width, and there is no \"head_dim\" to say it");
    }
    c.d_head = c.d_model / c.n_head;
  } else {
    c.d_head = whole(j, "head_dim", 1, 1 << 14, src);
  }
  if (c.d_head % 2 != 0) {
    throw InputError(src + ": the head width " + std::to_string(c.d_head) +
                     " is odd, and rotary positions pair the two halves of each head's q and k");
  }
}

void read_window(const json& j, const Traits& t, const std::string& src, ModelConfig& c) {
  if (t.window == Window::None) return;
  const int w = whole_or(j, "sliding_window", 0, 1, 1 << 24, src);
  if (t.window == Window::WhenGiven) {
    c.sliding_window = w;
  } else if (flag(j, "use_sliding_window", src)) {
    // As Hugging Face's Qwen2 runs it: the layers below max_window_layers see every position.
    c.sliding_window = w;
    c.first_window_layer = whole_or(j, "max_window_layers", 28, 0, 1 << 20, src);
    if (c.first_window_layer >= c.n_layer) c.sliding_window = c.first_window_layer = 0;
  }
}

}  // namespace

ModelConfig read_llama_config(const json& j, const FamilySpec& spec, const std::string& source) {
  const Traits t = traits_of(spec.family);
  ModelConfig c;
  c.family = spec.family;
  read_sizes(j, source, c);
  c.norm = NormKind::Rms;
  c.ffn = FfnKind::SiluGated;
  c.positions = PositionKind::Rope;
  c.norm_eps = number_or(j, "rms_norm_eps", 1e-6, 1, source);
  c.rope_theta = number_or(j, "rope_theta", 10000, 1e300, source);
  if (!absent(j, "rope_scaling")) c.rope_scaling = parse_rope_scaling(j["rope_scaling"].dump(), source + ": \"rope_scaling\"");
  try {
    (void)rope_frequencies(c.rope_theta, c.rope_scaling, c.d_head);  // an overflow shows here, not as NaN later
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  c.tied = flag(j, "tie_word_embeddings", source);
  const bool attention_bias = t.has_attention_bias && flag(j, "attention_bias", source);
  c.qkv_bias = t.qkv_bias_always || attention_bias;
  c.o_bias = attention_bias;
  c.mlp_bias = t.has_mlp_bias && flag(j, "mlp_bias", source);
  c.qk_norm = t.qk_norm;
  read_window(j, t, source, c);
  if (!absent(j, "hidden_act")) {
    const json& a = j["hidden_act"];
    if (!a.is_string() || (a.get<std::string>() != "silu" && a.get<std::string>() != "swish")) {
      throw InputError(source + ": \"hidden_act\" is " + a.dump() + "; a " + spec.model_type + " model's MLP gates with \"silu\"");
    }
  }
  return c;
}

DecoderTensors bind_llama_tensors(const ModelConfig& c, const WeightFiles& files) {
  const std::int64_t d = c.d_model, V = c.vocab_size, dh = c.d_head, qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  TensorBinder b(files, "hidden_size " + std::to_string(d) + ", " + std::to_string(c.n_head) + " heads and " + std::to_string(c.n_kv_head) +
                            " K/V heads of " + std::to_string(dh) + ", intermediate_size " + std::to_string(ff) + ", vocab_size " +
                            std::to_string(V));
  const std::string family = family_spec(c.family).model_type;
  const std::string why = "config.json has " + std::to_string(c.n_layer) + " " + family + " layers of width " + std::to_string(d);
  const auto need = [&](const std::string& name, std::vector<std::int64_t> shape) { return b.need(name, shape, why); };
  const auto linear = [&](const std::string& name, std::int64_t out, std::int64_t in, bool bias) {
    return LinearRef{need(name + ".weight", {out, in}), b.need_if(bias, name + ".bias", {out}, why), Layout::OutIn};
  };
  DecoderTensors t;
  t.embed = need("model.embed_tokens.weight", {V, d});
  t.final_norm = {need("model.norm.weight", {d}), {}};
  if (c.tied) {
    t.lm_head = t.embed;
    b.ignore("lm_head.weight");  // some exports keep a copy of the tied matrix
  } else {
    t.lm_head = b.need("lm_head.weight", {V, d}, "config.json's \"tie_word_embeddings\" is not true, so the output matrix is its own");
  }
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    LayerTensors L;
    L.attn_norm = {need(p + "input_layernorm.weight", {d}), {}};
    L.q = linear(p + "self_attn.q_proj", qw, d, c.qkv_bias);
    L.k = linear(p + "self_attn.k_proj", kvw, d, c.qkv_bias);
    L.v = linear(p + "self_attn.v_proj", kvw, d, c.qkv_bias);
    L.o = linear(p + "self_attn.o_proj", d, qw, c.o_bias);
    L.q_norm = b.need_if(c.qk_norm, p + "self_attn.q_norm.weight", {dh}, why);
    L.k_norm = b.need_if(c.qk_norm, p + "self_attn.k_norm.weight", {dh}, why);
    L.ffn_norm = {need(p + "post_attention_layernorm.weight", {d}), {}};
    L.gate = linear(p + "mlp.gate_proj", ff, d, c.mlp_bias);
    L.up = linear(p + "mlp.up_proj", ff, d, c.mlp_bias);
    L.down = linear(p + "mlp.down_proj", d, ff, c.mlp_bias);
    // Older checkpoints store each layer's rotary frequencies as a buffer: computed here instead.
    b.ignore(p + "self_attn.rotary_emb.inv_freq");
    t.layers.push_back(L);
  }
  if (const std::string extra = b.unused(); !extra.empty()) {
    throw InputError(files.find(extra).file->path().string() + ": tensor '" + extra + "' is not part of a " + family + " model with " +
                     std::to_string(c.n_layer) + " layers (does config.json belong to these weights?)");
  }
  return t;
}

std::vector<TensorSpec> llama_tensor_layout(const ModelConfig& c) {
  const std::int64_t d = c.d_model, dh = c.d_head, qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  std::vector<TensorSpec> out = {{"model.embed_tokens.weight", {c.vocab_size, d}}};
  const auto linear = [&](const std::string& name, std::int64_t rows, std::int64_t cols, bool bias) {
    out.push_back({name + ".weight", {rows, cols}});
    if (bias) out.push_back({name + ".bias", {rows}});
  };
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    out.push_back({p + "input_layernorm.weight", {d}});
    linear(p + "self_attn.q_proj", qw, d, c.qkv_bias);
    linear(p + "self_attn.k_proj", kvw, d, c.qkv_bias);
    linear(p + "self_attn.v_proj", kvw, d, c.qkv_bias);
    linear(p + "self_attn.o_proj", d, qw, c.o_bias);
    if (c.qk_norm) {
      out.push_back({p + "self_attn.q_norm.weight", {dh}});
      out.push_back({p + "self_attn.k_norm.weight", {dh}});
    }
    out.push_back({p + "post_attention_layernorm.weight", {d}});
    linear(p + "mlp.gate_proj", ff, d, c.mlp_bias);
    linear(p + "mlp.up_proj", ff, d, c.mlp_bias);
    linear(p + "mlp.down_proj", d, ff, c.mlp_bias);
  }
  out.push_back({"model.norm.weight", {d}});
  if (!c.tied) out.push_back({"lm_head.weight", {c.vocab_size, d}});
  return out;
}

std::string llama_config_json(const ModelConfig& c) {
  nlohmann::ordered_json j;
  j["model_type"] = family_spec(c.family).model_type;
  j["architectures"] = {"LlamaForCausalLM"};
  j["hidden_size"] = c.d_model;
  j["num_hidden_layers"] = c.n_layer;
  j["num_attention_heads"] = c.n_head;
  j["num_key_value_heads"] = c.n_kv_head;
  j["head_dim"] = c.d_head;
  j["intermediate_size"] = c.d_ff;
  j["max_position_embeddings"] = c.n_ctx;
  j["vocab_size"] = c.vocab_size;
  j["rms_norm_eps"] = c.norm_eps;
  j["rope_theta"] = c.rope_theta;
  j["rope_scaling"] = nlohmann::ordered_json::parse(c.rope_scaling.json);
  j["tie_word_embeddings"] = c.tied;
  j["attention_bias"] = c.qkv_bias;
  j["mlp_bias"] = c.mlp_bias;
  j["hidden_act"] = "silu";
  if (c.is_toy()) j["attnlab_task"] = nlohmann::ordered_json::parse(c.task_json);
  return j.dump(2) + "\n";
}

}  // namespace attnlab::model
