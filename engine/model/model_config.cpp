// Reading config.json: model_type chooses the family's reader (engine/model/families.hpp).
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
  if (!j.contains("model_type")) return read_gpt2_config(json_text, src);
  const auto& t = j["model_type"];
  if (!t.is_string()) throw InputError(src + ": \"model_type\" must be a string such as \"llama\", not " + t.dump());
  const std::string type = t.get<std::string>();
  if (type == "gpt2") return read_gpt2_config(json_text, src);
  if (is_llama_family(type)) return read_llama_config(j, type, src);
  std::string shown = type.substr(0, 60);
  throw InputError(src + ": \"model_type\" is \"" + shown + "\"; Attention Lab opens the families " + kFamilies);
}

}  // namespace attnlab::model
