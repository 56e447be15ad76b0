// A GGUF file's config and tensors (gguf_model.hpp): its {arch}.* keys read through the family's own
// config.json reader, and llama.cpp's tensor names bound to the decoder's blocks.
#include "engine/model/gguf_model.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <numbers>

namespace attnlab::model {

namespace {

using nlohmann::json;

const FamilySpec& family_of(const GgufMetadata& md) {
  const auto arch = md.string("general.architecture");
  if (!arch) md.fail("general.architecture", "is missing; a model's GGUF file names its architecture");
  const FamilySpec* spec = find_gguf_family(*arch);
  if (!spec) {
    md.fail("general.architecture", "is " + in_quotes(*arch) + "; Attention Lab opens the GGUF architectures " + gguf_family_list());
  }
  return *spec;
}

// The tensor's values as float32 (a small 1-D tensor such as rope_freqs.weight).
std::vector<float> values_of(const GgufFile& f, const TensorInfo& t) {
  std::vector<float> out(static_cast<std::size_t>(t.elements()));
  to_floats(t.type, f.data(t), t.elements(), out.data());
  return out;
}

// A number close to a whole one (a fit's rounding) written as that whole number.
double tidy(double v) { return std::abs(v - std::round(v)) <= 1e-6 * std::max(1.0, std::abs(v)) ? std::round(v) : v; }

// Llama 3's rope_scaling from the divisors llama.cpp's converter wrote in rope_freqs.weight
// (f_i / f_i' per frequency): factor is the low frequencies' plateau; in between, 1/divisor =
// (1 − s)/factor + s with s linear in 1/wavelength, whose two coefficients give low_freq_factor and
// high_freq_factor for an original context (only their ratios matter: low_freq_factor is set to 1).
// "null" when every divisor is 1. Checked: the rule's frequencies must give the file's divisors.
std::string llama3_scaling(const std::vector<float>& div, double theta, int d_head, const std::string& src) {
  const std::size_t n = static_cast<std::size_t>(d_head / 2);
  const auto refuse = [&](const std::string& why) {
    throw InputError(src + ": tensor 'rope_freqs.weight' " + why + "; Attention Lab's rotation reads no scaling, linear or llama3's");
  };
  if (div.size() != n) refuse("has " + std::to_string(div.size()) + " values for the " + std::to_string(n) + " frequencies of a head of " + std::to_string(d_head));
  if (std::all_of(div.begin(), div.end(), [](float v) { return std::abs(v - 1.0f) <= 1e-6f; })) return "null";
  const double factor = *std::max_element(div.begin(), div.end());
  std::vector<double> u(n);  // 1 / wavelength = f / 2π
  for (std::size_t i = 0; i < n; ++i) u[i] = std::pow(theta, -2.0 * static_cast<double>(i) / d_head) / (2 * std::numbers::pi);
  // Least squares of s·P + Q = u (P = (high − low)/original, Q = low/original) over the blend.
  double ss = 0, s1 = 0, su = 0, uu = 0, cnt = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (div[i] <= 1 + 1e-5 || div[i] >= factor * (1 - 1e-5)) continue;
    const double s = (1 / static_cast<double>(div[i]) - 1 / factor) / (1 - 1 / factor);
    ss += s * s, s1 += s, su += s * u[i], uu += u[i], cnt += 1;
  }
  if (cnt < 2 || !(factor > 1)) refuse("holds divisors that follow no llama3 rule (fewer than two frequencies are blended)");
  const double det = ss * cnt - s1 * s1, P = (su * cnt - s1 * uu) / det, Q = (ss * uu - s1 * su) / det;
  if (!(Q > 0) || !(P > 0)) refuse("holds divisors that follow no llama3 rule");
  json j = {{"rope_type", "llama3"}, {"factor", tidy(factor)}, {"low_freq_factor", 1.0}, {"high_freq_factor", tidy((P + Q) / Q)},
            {"original_max_position_embeddings", tidy(1 / Q)}};
  const RopeScaling scaling = parse_rope_scaling(j.dump(), src + ": rope_freqs.weight");
  const std::vector<double> plain = rope_frequencies(theta, {}, d_head), scaled = rope_frequencies(theta, scaling, d_head);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::abs(plain[i] / scaled[i] - div[i]) > 1e-4 * div[i]) refuse("holds divisors that follow no llama3 rule");
  }
  return j.dump();
}

// rope_scaling from {arch}.rope.scaling.* (or the older {arch}.rope.scale_linear).
json rope_scaling_of(const GgufMetadata& md, const std::string& arch) {
  const std::string type(md.string(arch + ".rope.scaling.type").value_or(md.has(arch + ".rope.scale_linear") ? "linear" : "none"));
  if (type == "none") return nullptr;
  if (type != "linear") {
    md.fail(arch + ".rope.scaling.type", "is " + in_quotes(type) + "; Attention Lab's rotation reads no scaling, linear or llama3's");
  }
  const auto factor = md.has(arch + ".rope.scaling.factor") ? md.number(arch + ".rope.scaling.factor") : md.number(arch + ".rope.scale_linear");
  if (!factor) md.fail(arch + ".rope.scaling.factor", "is missing; linear scaling needs its factor");
  return {{"rope_type", "linear"}, {"factor", *factor}};
}

// The family's config.json from the file: its fields from the {arch}.* keys, the rest from the
// tensors (the vocabulary, tying, biases) and the rope keys.
json config_json(const FamilySpec& spec, const GgufFile& f, const std::string& arch) {
  const GgufMetadata md = f.metadata();
  json j = {{"model_type", spec.model_type}};
  for (const GgufField& field : spec.gguf_fields) {
    const std::string key = arch + "." + field.gguf_key;
    const GgufValue* v = md.find(key);
    if (!v) continue;
    if (v->type == GgufType::F32 || v->type == GgufType::F64) j[field.config_field] = *md.number(key);
    else j[field.config_field] = *md.integer(key);
  }
  const auto& tensors = f.tensor_infos();
  const auto embed = tensors.find("token_embd.weight");
  if (embed == tensors.end()) throw InputError(f.path().string() + ": tensor 'token_embd.weight' is missing (every model's GGUF file has it)");
  if (embed->second.shape.size() != 2) throw InputError(f.path().string() + ": tensor 'token_embd.weight' is not a matrix");
  j["vocab_size"] = embed->second.shape[0];
  j["tie_word_embeddings"] = !tensors.count("output.weight");
  j["attention_bias"] = tensors.count("blk.0.attn_q.bias") > 0;
  j["mlp_bias"] = tensors.count("blk.0.ffn_up.bias") > 0;
  j["rope_scaling"] = rope_scaling_of(md, arch);
  if (j.contains("sliding_window")) j["use_sliding_window"] = true, j["max_window_layers"] = 0;
  return j;
}

// The family's reader on that config.json; a refusal names the GGUF key behind the field it names.
ModelConfig read_config(const FamilySpec& spec, const json& j, const std::string& src, const std::string& arch) {
  try {
    return spec.read_config(j, spec, src);
  } catch (const InputError& e) {
    const std::string what = e.what();
    for (const GgufField& field : spec.gguf_fields) {
      if (what.find("\"" + std::string(field.config_field) + "\"") != std::string::npos) {
        throw InputError(what + " (the GGUF key " + arch + "." + field.gguf_key + ")");
      }
    }
    throw;
  }
}

}  // namespace

ModelConfig gguf_model_config(const GgufFile& f) {
  const GgufMetadata md = f.metadata();
  const FamilySpec& spec = family_of(md);
  const std::string arch = spec.gguf_architecture, src = f.path().string();
  json j = config_json(spec, f, arch);
  ModelConfig c = read_config(spec, j, src, arch);
  if (const auto rope = f.tensor_infos().find("rope_freqs.weight"); rope != f.tensor_infos().end() && c.positions == PositionKind::Rope) {
    j["rope_scaling"] = json::parse(llama3_scaling(values_of(f, rope->second), c.rope_theta, c.d_head, src));
    c = read_config(spec, j, src, arch);
  }
  if (const auto dims = md.integer(arch + ".rope.dimension_count"); dims && c.positions == PositionKind::Rope && *dims != c.d_head) {
    md.fail(arch + ".rope.dimension_count", "is " + std::to_string(*dims) + ": the rotation turns part of each head of " + std::to_string(c.d_head) +
                                                ", and Attention Lab's turns whole heads");
  }
  if (const auto v = md.integer(arch + ".attention.value_length"); v && *v != c.d_head) {
    md.fail(arch + ".attention.value_length", "is " + std::to_string(*v) + ", not the key width " + std::to_string(c.d_head) +
                                                  "; Attention Lab's heads have one width");
  }
  // Biases as the file has them (llama.cpp reads each as optional).
  const auto& t = f.tensor_infos();
  c.qkv_bias = t.count("blk.0.attn_q.bias") || t.count("blk.0.attn_qkv.bias");
  c.o_bias = t.count("blk.0.attn_output.bias") > 0;
  c.mlp_bias = t.count("blk.0.ffn_up.bias") > 0;
  c.family = spec.family;
  return c;
}

DecoderTensors bind_gguf_tensors(const ModelConfig& c, const WeightFiles& files) {
  const std::int64_t d = c.d_model, V = c.vocab_size, dh = c.d_head, qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  const FamilySpec& spec = family_spec(c.family);
  TensorBinder b(files,
                 "embedding_length " + std::to_string(d) + ", " + std::to_string(c.n_head) + " heads and " + std::to_string(c.n_kv_head) +
                     " K/V heads of " + std::to_string(dh) + ", feed_forward_length " + std::to_string(ff) + ", " + std::to_string(V) + " tokens",
                 "its keys");
  const std::string why = "the file's keys say " + std::to_string(c.n_layer) + " " + spec.gguf_architecture + " blocks of width " + std::to_string(d);
  const auto need = [&](const std::string& name, std::vector<std::int64_t> shape) { return b.need(name, shape, why); };
  const auto linear = [&](const std::string& name, std::int64_t out, std::int64_t in, bool bias) {
    return LinearRef{need(name + ".weight", {out, in}), b.need_if(bias, name + ".bias", {out}, why), Layout::OutIn};
  };
  const auto norm = [&](const std::string& name) { return NormRef{need(name + ".weight", {d}), b.need_if(c.norm_bias, name + ".bias", {d}, why)}; };
  DecoderTensors t;
  t.embed = need("token_embd.weight", {V, d});
  if (c.positions == PositionKind::Learned) t.position = need("position_embd.weight", {c.n_ctx, d});
  t.final_norm = norm("output_norm");
  t.lm_head = c.tied ? t.embed : b.need("output.weight", {V, d}, "the file has no tied output");
  b.ignore("rope_freqs.weight");  // read into the config's rope scaling
  const int interleaved = spec.gguf_interleaved_qk ? c.d_head : 0;
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    LayerTensors L;
    L.attn_norm = norm(p + "attn_norm");
    if (c.fused_qkv) {
      L.qkv = linear(p + "attn_qkv", qw + 2 * kvw, d, c.qkv_bias);
    } else {
      L.q = linear(p + "attn_q", qw, d, c.qkv_bias);
      L.k = linear(p + "attn_k", kvw, d, c.qkv_bias);
      L.v = linear(p + "attn_v", kvw, d, c.qkv_bias);
      L.q.interleaved = L.k.interleaved = interleaved;
    }
    L.o = linear(p + "attn_output", d, qw, c.o_bias);
    L.q_norm = b.need_if(c.qk_norm, p + "attn_q_norm.weight", {dh}, why);
    L.k_norm = b.need_if(c.qk_norm, p + "attn_k_norm.weight", {dh}, why);
    L.ffn_norm = norm(p + "ffn_norm");
    if (c.ffn == FfnKind::SiluGated) L.gate = linear(p + "ffn_gate", ff, d, c.mlp_bias);
    L.up = linear(p + "ffn_up", ff, d, c.mlp_bias);
    L.down = linear(p + "ffn_down", d, ff, c.mlp_bias);
    t.layers.push_back(L);
  }
  if (const std::string extra = b.unused(); !extra.empty()) {
    throw InputError(files.source() + ": tensor " + in_quotes(extra, 80) + " is not part of a " + spec.gguf_architecture + " model with " +
                     std::to_string(c.n_layer) + " blocks (does the file hold another architecture?)");
  }
  return t;
}

std::string gguf_tensor_type(const GgufFile& f) {
  // llama.cpp's file types (enum llama_ftype) of the types read here.
  static const std::map<std::int64_t, const char*> kFileTypes = {
      {0, "F32"},     {1, "F16"},     {2, "Q4_0"},    {3, "Q4_1"},    {7, "Q8_0"},    {8, "Q5_0"},   {9, "Q5_1"},
      {10, "Q2_K"},   {11, "Q3_K_S"}, {12, "Q3_K_M"}, {13, "Q3_K_L"}, {14, "Q4_K_S"}, {15, "Q4_K_M"}, {16, "Q5_K_S"},
      {17, "Q5_K_M"}, {18, "Q6_K"},   {21, "Q2_K_S"}, {32, "BF16"}};
  const GgufMetadata md = f.metadata();
  if (md.has("general.file_type")) {
    try {
      if (const auto it = kFileTypes.find(*md.integer("general.file_type")); it != kFileTypes.end()) return it->second;
    } catch (const InputError&) {
      // a file type of another value type: fall back to counting
    }
  }
  std::map<TensorType, std::int64_t> values;
  for (const auto& [name, t] : f.tensor_infos()) values[t.type] += t.elements();
  const auto most = std::max_element(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == values.end() ? "F32" : type_name(most->first);
}

}  // namespace attnlab::model
