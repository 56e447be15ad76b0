// Llama, Mistral, Qwen2 and Qwen3 (docs/MODELS.md, "The families"): one config reader
// and one tensor binder, with what tells the four apart in a table. Each is RMSNorm, rotary
// positions, grouped K/V heads and the SiLU-gated MLP, Linear weights [out, in] (y = x·Wᵀ + b).
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace attnlab::model {

namespace {

using nlohmann::json;

enum class Window {
  None,                // llama: every layer sees every earlier position
  WhenGiven,           // mistral: "sliding_window" applies unless null
  WhenUseSlidingWindow // qwen2, qwen3: only with "use_sliding_window", from "max_window_layers" on
};

struct Traits {
  const char* type;
  bool qkv_bias_always;     // qwen2: q, k and v carry biases whatever the config says
  bool has_attention_bias;  // "attention_bias" adds q, k, v and o biases (llama, qwen3)
  bool has_mlp_bias;        // "mlp_bias" adds gate, up and down biases (llama)
  bool qk_norm;             // qwen3
  Window window;
};

constexpr Traits kTraits[] = {
    {"llama", false, true, true, false, Window::None},
    {"mistral", false, false, false, false, Window::WhenGiven},
    {"qwen2", true, false, false, false, Window::WhenUseSlidingWindow},
    {"qwen3", false, true, false, true, Window::WhenUseSlidingWindow},
};

const Traits* traits_of(const std::string& type) {
  for (const Traits& t : kTraits) {
    if (type == t.type) return &t;
  }
  return nullptr;
}

bool absent(const json& j, const char* key) { return !j.contains(key) || j[key].is_null(); }

int whole(const json& j, const char* key, std::int64_t lo, std::int64_t hi, const std::string& src) {
  if (absent(j, key)) throw InputError(src + ": \"" + key + "\" is missing");
  const json& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi) {
    throw InputError(src + ": \"" + key + "\" must be a whole number from " + std::to_string(lo) + " to " + std::to_string(hi) + ", not " +
                     v.dump());
  }
  return static_cast<int>(v.get<std::int64_t>());
}

int whole_or(const json& j, const char* key, int fallback, std::int64_t lo, std::int64_t hi, const std::string& src) {
  return absent(j, key) ? fallback : whole(j, key, lo, hi, src);
}

bool flag(const json& j, const char* key, const std::string& src) {
  if (absent(j, key)) return false;
  if (!j[key].is_boolean()) throw InputError(src + ": \"" + key + "\" must be true or false, not " + j[key].dump());
  return j[key].get<bool>();
}

double number_or(const json& j, const char* key, double fallback, double hi, const std::string& src) {
  if (absent(j, key)) return fallback;
  const json& v = j[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !(v.get<double>() <= hi)) {
    throw InputError(src + ": \"" + key + "\" must be a positive number up to " + json(hi).dump() + ", not " + v.dump());
  }
  return v.get<double>();
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

bool is_llama_family(const std::string& model_type) { return traits_of(model_type) != nullptr; }

ModelConfig read_llama_config(const json& j, const std::string& family, const std::string& source) {
  const Traits& t = *traits_of(family);
  ModelConfig c;
  c.family = family;
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
      throw InputError(source + ": \"hidden_act\" is " + a.dump() + "; a " + family + " model's MLP gates with \"silu\"");
    }
  }
  return c;
}

DecoderTensors bind_llama_tensors(const ModelConfig& c, const WeightFiles& files) {
  const std::int64_t d = c.d_model, V = c.vocab_size, dh = c.d_head, qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  TensorBinder b(files, "hidden_size " + std::to_string(d) + ", " + std::to_string(c.n_head) + " heads and " + std::to_string(c.n_kv_head) +
                            " K/V heads of " + std::to_string(dh) + ", intermediate_size " + std::to_string(ff) + ", vocab_size " +
                            std::to_string(V));
  const std::string why = "config.json has " + std::to_string(c.n_layer) + " " + c.family + " layers of width " + std::to_string(d);
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
    throw InputError(files.find(extra).file->path().string() + ": tensor '" + extra + "' is not part of a " + c.family + " model with " +
                     std::to_string(c.n_layer) + " layers (does config.json belong to these weights?)");
  }
  return t;
}

}  // namespace attnlab::model
