// The families' table (docs/ARCHITECTURE.md, "Adding a model family"), the one place a family's
// model_type is written, and what every family's tensor binding shares: shape checks and
// remembering what was taken.
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"

#include <stdexcept>

namespace attnlab::model {

namespace {

constexpr const char* kMaxPositions = "max_position_embeddings";

// The GGUF keys (after "{arch}.") of each family's config.json fields, as llama.cpp's converter
// writes them (the tokenizer, biases, tying and rope scaling are read by gguf_model.cpp).
constexpr GgufField kGpt2Gguf[] = {{"n_layer", "block_count"},
                                   {"n_head", "attention.head_count"},
                                   {"n_embd", "embedding_length"},
                                   {"n_positions", "context_length"},
                                   {"layer_norm_epsilon", "attention.layer_norm_epsilon"}};
constexpr GgufField kLlamaGguf[] = {{"num_hidden_layers", "block_count"},
                                    {"num_attention_heads", "attention.head_count"},
                                    {"num_key_value_heads", "attention.head_count_kv"},
                                    {"hidden_size", "embedding_length"},
                                    {"head_dim", "attention.key_length"},
                                    {"intermediate_size", "feed_forward_length"},
                                    {"max_position_embeddings", "context_length"},
                                    {"rms_norm_eps", "attention.layer_norm_rms_epsilon"},
                                    {"rope_theta", "rope.freq_base"},
                                    {"sliding_window", "attention.sliding_window"}};

// model_type, display name, reader, binder, tokenizer, context field, what the trainer writes, and
// its GGUF files: architecture, q/k rows interleaved, keys.
const FamilySpec kFamilies[] = {
    {Family::Gpt2, "gpt2", "GPT-2", read_gpt2_config, bind_gpt2_tensors, TokenizerKind::Gpt2Bpe, "n_positions", gpt2_tensor_layout,
     gpt2_config_json, "gpt2", false, kGpt2Gguf},
    {Family::Llama, "llama", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions,
     llama_tensor_layout, llama_config_json, "llama", true, kLlamaGguf},
    {Family::Mistral, "mistral", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions, nullptr,
     nullptr, "mistral", true, kLlamaGguf},
    {Family::Qwen2, "qwen2", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions, nullptr, nullptr,
     "qwen2", false, kLlamaGguf},
    {Family::Qwen3, "qwen3", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions, nullptr, nullptr,
     "qwen3", false, kLlamaGguf},
};

std::string listed(const std::vector<std::string>& names) {
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
}

}  // namespace

const FamilySpec& family_spec(Family family) {
  for (const FamilySpec& f : kFamilies) {
    if (f.family == family) return f;
  }
  throw std::logic_error("family_spec: a Family without a row in the table");
}

const FamilySpec* find_family(std::string_view model_type) {
  for (const FamilySpec& f : kFamilies) {
    if (model_type == f.model_type) return &f;
  }
  return nullptr;
}

const FamilySpec* find_gguf_family(std::string_view architecture) {
  for (const FamilySpec& f : kFamilies) {
    if (f.gguf_architecture && architecture == f.gguf_architecture) return &f;
  }
  return nullptr;
}

std::span<const FamilySpec> family_table() { return kFamilies; }

std::string family_list(bool trainable) {
  std::vector<std::string> names;
  for (const FamilySpec& f : kFamilies) {
    if (!trainable || f.tensor_layout) names.emplace_back(f.model_type);
  }
  return listed(names);
}

std::string gguf_family_list() {
  std::vector<std::string> names;
  for (const FamilySpec& f : kFamilies) {
    if (f.gguf_architecture) names.emplace_back(f.gguf_architecture);
  }
  return listed(names);
}

std::string family_name(const ModelConfig& c) { return c.is_toy() ? "attnlab-toy" : family_spec(c.family).model_type; }

namespace {

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string s = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

}  // namespace

TensorRef TensorBinder::need(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why_missing) {
  const TensorRef t = files_.find(name);
  if (!t) throw InputError(files_.source() + ": tensor '" + name + "' is missing (" + why_missing + ")");
  if (t.info->shape != shape) {
    throw InputError(t.file->path().string() + ": tensor '" + name + "' has shape " + shape_text(t.info->shape) + " but " + config_ + " (" +
                     sizes_ + ") needs " + shape_text(shape));
  }
  used_.insert(name);
  return t;
}

TensorRef TensorBinder::need_if(bool present, const std::string& name, const std::vector<std::int64_t>& shape,
                                const std::string& why_missing) {
  return present ? need(name, shape, why_missing) : TensorRef{};
}

std::string TensorBinder::unused() const {
  for (const auto& [name, ref] : files_.tensors()) {
    if (!used_.count(name)) return name;
  }
  return "";
}

}  // namespace attnlab::model
