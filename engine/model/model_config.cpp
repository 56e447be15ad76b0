// Reading config.json: model_type chooses the family's row (engine/model/families.hpp), whose
// reader fills the config; a toy model's "attnlab_task" is read here, whatever its family.
#include "engine/model/model_config.hpp"
#include "engine/model/tokenizer/json_field.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/families.hpp"

#include <nlohmann/json.hpp>

namespace attnlab::model {

ModelConfig parse_model_config(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json(json_text, src);
  if (!j.is_object()) throw InputError(src + ": not a JSON object");
  // GPT-2's own config.json names its model_type; older exports and Attention Lab's first toy
  // models leave it out, so its absence means GPT-2.
  const FamilySpec* spec = &family_spec(Family::Gpt2);
  if (j.contains("model_type")) {
    const auto& t = j["model_type"];
    if (!t.is_string()) throw InputError(src + ": \"model_type\" must be a string such as \"llama\", not " + t.dump());
    spec = find_family(t.get<std::string>());
    if (!spec) {
      const std::string shown = t.get<std::string>().substr(0, 60);
      throw InputError(src + ": \"model_type\" is \"" + shown + "\"; Attention Lab opens the families " + family_list());
    }
  }
  ModelConfig c = spec->read_config(j, *spec, src);
  c.family = spec->family;
  if (j.contains("attnlab_task")) {
    if (!j["attnlab_task"].is_object()) throw InputError(src + ": \"attnlab_task\" must be an object");
    c.task_json = j["attnlab_task"].dump();
  }
  return c;
}

std::int64_t parameter_count(const ModelConfig& c) {
  const std::int64_t d = c.d_model, V = c.vocab_size, qw = c.q_width(), kvw = c.kv_width(), ff = c.d_ff;
  const std::int64_t norm = c.norm_bias ? 2 * d : d;
  std::int64_t layer = 2 * norm + d * (qw + 2 * kvw) + qw * d;
  if (c.qkv_bias) layer += qw + 2 * kvw;
  if (c.o_bias) layer += d;
  if (c.qk_norm) layer += 2 * c.d_head;
  const bool gated = c.ffn == FfnKind::SiluGated;
  layer += (gated ? 3 : 2) * d * ff;
  if (c.mlp_bias) layer += (gated ? 2 : 1) * ff + d;
  std::int64_t n = V * d + c.n_layer * layer + norm;
  if (c.positions == PositionKind::Learned) n += static_cast<std::int64_t>(c.n_ctx) * d;
  if (!c.tied) n += V * d;
  return n;
}

}  // namespace attnlab::model
