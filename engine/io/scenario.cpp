// Scenario JSON: strict reading with one-sentence errors, and exact round-trip writing.
#include "engine/io/scenario.hpp"

#include "engine/io/atomic_file.hpp"
#include "engine/io/json_matrix.hpp"
#include "engine/text/text_format.hpp"

#include <set>

namespace attnlab {

namespace {

const std::set<std::string>& known_keys() {
  static const std::set<std::string> keys{"format", "version", "title", "description", "Q", "K", "V",
                                          "query_tokens", "key_tokens", "scale", "temperature", "mask",
                                          "normalizer", "rope", "lesson"};
  return keys;
}

Mask parse_mask_object(const nlohmann::json& j, std::string_view source) {
  const std::string src(source);
  if (!j.is_object()) throw InputError(src + ": mask must be an object such as {\"kind\": \"causal\"}");
  if (!j.contains("kind")) throw InputError(src + ": mask needs a \"kind\" (none, causal, padding, prefix, window or custom)");
  if (!j.at("kind").is_string()) throw InputError(src + ": mask.kind must be a string");
  Mask mask;
  mask.kind = parse_mask_kind(j.at("kind").get<std::string>(), src + ": mask.kind");
  const char* param_key = nullptr;
  switch (mask.kind) {
    case MaskKind::Padding: param_key = "valid"; break;
    case MaskKind::Prefix: param_key = "prefix"; break;
    case MaskKind::Window: param_key = "size"; break;
    default: break;
  }
  for (const auto& [key, value] : j.items()) {
    (void)value;
    const bool ok = key == "kind" || (param_key && key == param_key) || (mask.kind == MaskKind::Custom && key == "blocked");
    if (!ok) {
      throw InputError(src + ": mask." + key + " is not a field of a " + std::string(mask_kind_name(mask.kind)) + " mask");
    }
  }
  if (param_key) {
    if (!j.contains(param_key)) {
      throw InputError(src + ": a " + std::string(mask_kind_name(mask.kind)) + " mask needs \"" + param_key + "\"");
    }
    const long long v = json_to_integer(j.at(param_key), source, std::string("mask.") + param_key);
    if (v < 0) throw InputError(src + ": mask." + param_key + " is " + std::to_string(v) + "; it must not be negative");
    if (v > 1'000'000'000) throw InputError(src + ": mask." + param_key + " is absurdly large");
    mask.param = static_cast<int>(v);
  }
  if (mask.kind == MaskKind::Custom) {
    if (!j.contains("blocked")) throw InputError(src + ": a custom mask needs a \"blocked\" grid of 0s and 1s");
    const Matrix grid = json_to_matrix(j.at("blocked"), source, "mask.blocked");
    mask.blocked.resize(grid.rows(), grid.cols());
    for (Eigen::Index r = 0; r < grid.rows(); ++r) {
      for (Eigen::Index c = 0; c < grid.cols(); ++c) {
        const float v = grid(r, c);
        if (v != 0.0f && v != 1.0f) {
          throw InputError(src + ": mask.blocked[" + std::to_string(r) + "][" + std::to_string(c) + "] is " +
                           float_json(v) + "; cells must be 0 (visible) or 1 (blocked)");
        }
        mask.blocked(r, c) = v != 0.0f ? 1 : 0;
      }
    }
  }
  return mask;
}

std::string tokens_json(const std::vector<std::string>& tokens) {
  std::string out = "[";
  for (size_t i = 0; i < tokens.size(); ++i) out += (i ? ", " : "") + json_string(tokens[i]);
  return out + "]";
}

}  // namespace

std::string mask_to_json(const Mask& mask) {
  std::string out = "{\"kind\": " + json_string(mask_kind_name(mask.kind));
  switch (mask.kind) {
    case MaskKind::Padding: out += ", \"valid\": " + std::to_string(mask.param); break;
    case MaskKind::Prefix: out += ", \"prefix\": " + std::to_string(mask.param); break;
    case MaskKind::Window: out += ", \"size\": " + std::to_string(mask.param); break;
    case MaskKind::Custom: {
      out += ", \"blocked\": [";
      for (Eigen::Index i = 0; i < mask.blocked.rows(); ++i) {
        out += i ? ", [" : "[";
        for (Eigen::Index j = 0; j < mask.blocked.cols(); ++j) out += (j ? ", " : "") + std::to_string(mask.blocked(i, j));
        out += "]";
      }
      out += "]";
      break;
    }
    default: break;
  }
  return out + "}";
}

Scenario parse_scenario(std::string_view json_text, std::string_view source) {
  const std::string src(source);
  const nlohmann::json j = parse_json_text(json_text, source);
  if (!j.is_object()) throw InputError(src + ": a scenario must be a JSON object with Q, K and V");
  if (j.contains("format") && j.at("format") != "attnlab-scenario") {
    throw InputError(src + ": format must be \"attnlab-scenario\"");
  }
  long long version = 1;
  if (j.contains("version")) {
    version = json_to_integer(j.at("version"), source, "version");
    if (version < 1) throw InputError(src + ": version must be 1 or more");
  }
  for (const auto& [key, value] : j.items()) {
    (void)value;
    // Later versions add fields; one this build does not know could change the numbers.
    if (!known_keys().contains(key) && version > 1) {
      throw InputError(src + ": field \"" + key + "\" of version " + std::to_string(version) +
                       " is not understood by this Attention Lab and could change the numbers");
    }
  }
  Scenario s;
  for (const char* m : {"Q", "K", "V"}) {
    if (!j.contains(m)) throw InputError(src + ": the scenario has no \"" + m + "\" matrix");
  }
  s.Q = json_to_matrix(j.at("Q"), source, "Q");
  s.K = json_to_matrix(j.at("K"), source, "K");
  s.V = json_to_matrix(j.at("V"), source, "V");
  if (j.contains("title")) {
    if (!j.at("title").is_string()) throw InputError(src + ": title must be a string");
    s.title = j.at("title").get<std::string>();
  }
  if (j.contains("description")) {
    if (!j.at("description").is_string()) throw InputError(src + ": description must be a string");
    s.description = j.at("description").get<std::string>();
  }
  if (j.contains("query_tokens")) s.query_tokens = json_to_strings(j.at("query_tokens"), source, "query_tokens");
  if (j.contains("key_tokens")) s.key_tokens = json_to_strings(j.at("key_tokens"), source, "key_tokens");
  if (j.contains("scale")) {
    if (!j.at("scale").is_boolean()) throw InputError(src + ": scale must be true or false");
    s.options.scale = j.at("scale").get<bool>();
  }
  if (j.contains("temperature")) s.options.temperature = json_to_number(j.at("temperature"), source, "temperature");
  if (j.contains("mask")) s.options.mask = parse_mask_object(j.at("mask"), source);
  if (j.contains("normalizer")) {
    if (!j.at("normalizer").is_string()) throw InputError(src + ": normalizer must be a string");
    s.options.normalizer = parse_normalizer(j.at("normalizer").get<std::string>(), src + ": normalizer");
  }
  if (j.contains("rope") && !j.at("rope").is_null()) s.options.rope = parse_rope_settings(j.at("rope").dump(), src + ": rope");
  if (j.contains("lesson")) s.lesson = parse_lesson_spec(j.at("lesson").dump(), src);
  validate_scenario(s, source);
  return s;
}

void validate_scenario(const Scenario& s, std::string_view source) {
  const std::string src(source);
  try {
    validate_problem(s.Q, s.K, s.V, s.options);
  } catch (const InputError& e) {
    throw InputError(src + ": " + e.what());
  }
  if (!s.query_tokens.empty() && static_cast<Eigen::Index>(s.query_tokens.size()) != s.Q.rows()) {
    throw InputError(src + ": query_tokens has " + std::to_string(s.query_tokens.size()) + " labels but Q has " +
                     std::to_string(s.Q.rows()) + " rows");
  }
  if (!s.key_tokens.empty() && static_cast<Eigen::Index>(s.key_tokens.size()) != s.K.rows()) {
    throw InputError(src + ": key_tokens has " + std::to_string(s.key_tokens.size()) + " labels but K has " +
                     std::to_string(s.K.rows()) + " rows");
  }
}

Scenario load_scenario(const std::filesystem::path& path) {
  return parse_scenario(read_file(path), path.string());
}

std::string scenario_to_json(const Scenario& s) {
  std::string out = "{\n";
  out += "  \"format\": \"attnlab-scenario\",\n  \"version\": 1,\n";
  out += "  \"title\": " + json_string(s.title) + ",\n";
  if (!s.description.empty()) out += "  \"description\": " + json_string(s.description) + ",\n";
  out += "  \"Q\": " + matrix_json(s.Q, 2) + ",\n";
  out += "  \"K\": " + matrix_json(s.K, 2) + ",\n";
  out += "  \"V\": " + matrix_json(s.V, 2) + ",\n";
  if (!s.query_tokens.empty()) out += "  \"query_tokens\": " + tokens_json(s.query_tokens) + ",\n";
  if (!s.key_tokens.empty()) out += "  \"key_tokens\": " + tokens_json(s.key_tokens) + ",\n";
  out += std::string("  \"scale\": ") + (s.options.scale ? "true" : "false") + ",\n";
  out += "  \"temperature\": " + double_json(s.options.temperature) + ",\n";
  out += "  \"normalizer\": " + json_string(normalizer_name(s.options.normalizer)) + ",\n";
  out += "  \"mask\": " + mask_to_json(s.options.mask);
  if (s.options.rope) out += ",\n  \"rope\": " + rope_settings_json(*s.options.rope);
  if (!s.lesson.raw_json.empty()) out += ",\n  \"lesson\": " + s.lesson.raw_json;
  out += "\n";
  out += "}\n";
  return out;
}

void save_scenario(const Scenario& s, const std::filesystem::path& path) {
  write_file_atomic(path, scenario_to_json(s));
}

std::string display_token(const std::vector<std::string>& tokens, Eigen::Index count, Eigen::Index i) {
  return static_cast<Eigen::Index>(tokens.size()) == count ? tokens[static_cast<size_t>(i)] : "t" + std::to_string(i + 1);
}

std::vector<std::string> display_tokens(const std::vector<std::string>& tokens, Eigen::Index count) {
  if (static_cast<Eigen::Index>(tokens.size()) == count) return tokens;
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(count));
  for (Eigen::Index i = 0; i < count; ++i) out.push_back(display_token(tokens, count, i));
  return out;
}

}  // namespace attnlab
