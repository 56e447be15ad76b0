// Reading and checking a GPT-2 config.json.
#include "engine/model/gpt2_config.hpp"
#include "engine/model/tokenizer/json_field.hpp"

#include "engine/attention/matrix.hpp"

#include <nlohmann/json.hpp>

namespace attnlab::model {

namespace {

int positive_int(const nlohmann::json& j, const char* key, const char* fallback, int limit, const std::string& src) {
  const char* found = j.contains(key) ? key : (fallback && j.contains(fallback) ? fallback : nullptr);
  if (!found) throw InputError(src + ": \"" + key + "\" is missing");
  const auto& v = j[found];
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > limit) {
    throw InputError(src + ": \"" + found + "\" must be a whole number from 1 to " + std::to_string(limit) + ", not " + v.dump());
  }
  return v.get<int>();
}

}  // namespace

std::int64_t Gpt2Config::parameters() const {
  const std::int64_t d = n_embd, V = vocab_size, P = n_positions;
  const std::int64_t block = 2 * d + (d * 3 * d + 3 * d) + (d * d + d) + 2 * d + (d * 4 * d + 4 * d) + (4 * d * d + d);
  return V * d + P * d + n_layer * block + 2 * d;
}

Gpt2Config parse_gpt2_config(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json(json_text, src);
  if (!j.is_object()) throw InputError(src + ": not a JSON object");
  Gpt2Config c;
  // Limits far above GPT-2 XL (48 layers, 25 heads, 1600 wide, 1024 positions, 50 257 tokens)
  // that still keep every product of sizes inside 64 bits.
  c.n_layer = positive_int(j, "n_layer", "num_hidden_layers", 1024, src);
  c.n_head = positive_int(j, "n_head", "num_attention_heads", 1024, src);
  c.n_embd = positive_int(j, "n_embd", "hidden_size", 1 << 16, src);
  c.n_positions = positive_int(j, "n_positions", "n_ctx", 1 << 20, src);
  c.vocab_size = positive_int(j, "vocab_size", nullptr, 1 << 22, src);
  if (c.n_embd % c.n_head != 0) {
    throw InputError(src + ": \"n_embd\" " + std::to_string(c.n_embd) + " is not divisible by \"n_head\" " + std::to_string(c.n_head) +
                     ", so the heads cannot share it equally");
  }
  if (j.contains("layer_norm_epsilon")) {
    const auto& e = j["layer_norm_epsilon"];
    if (!e.is_number() || !(e.get<double>() > 0) || e.get<double>() > 1) {
      throw InputError(src + ": \"layer_norm_epsilon\" must be a small positive number, not " + e.dump());
    }
    c.layer_norm_epsilon = e.get<double>();
  }
  if (j.contains("activation_function")) {
    const auto& a = j["activation_function"];
    if (!a.is_string() || a.get<std::string>() != "gelu_new") {
      throw InputError(src + ": \"activation_function\" is " + a.dump() + "; Attention Lab runs GPT-2's \"gelu_new\" (the tanh GELU)");
    }
  }
  if (j.contains("attnlab_task")) {
    if (!j["attnlab_task"].is_object()) throw InputError(src + ": \"attnlab_task\" must be an object");
    c.task_json = j["attnlab_task"].dump();
  }
  return c;
}

}  // namespace attnlab::model
