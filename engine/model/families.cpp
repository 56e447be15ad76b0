// The families' table (docs/ARCHITECTURE.md, "Adding a model family"), the one place a family's
// model_type is written, and what every family's tensor binding shares: shape checks and
// remembering what was taken.
#include "engine/model/families.hpp"

#include "engine/attention/matrix.hpp"

#include <stdexcept>

namespace attnlab::model {

namespace {

constexpr const char* kMaxPositions = "max_position_embeddings";

// model_type, display name, reader, binder, tokenizer, context field, and what the trainer writes.
const FamilySpec kFamilies[] = {
    {Family::Gpt2, "gpt2", "GPT-2", read_gpt2_config, bind_gpt2_tensors, TokenizerKind::Gpt2Bpe, "n_positions", gpt2_tensor_layout,
     gpt2_config_json},
    {Family::Llama, "llama", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions,
     llama_tensor_layout, llama_config_json},
    {Family::Mistral, "mistral", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions, nullptr,
     nullptr},
    {Family::Qwen2, "qwen2", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions, nullptr, nullptr},
    {Family::Qwen3, "qwen3", nullptr, read_llama_config, bind_llama_tensors, TokenizerKind::TokenizerJson, kMaxPositions, nullptr, nullptr},
};

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

std::span<const FamilySpec> family_table() { return kFamilies; }

std::string family_list(bool trainable) {
  std::vector<std::string> names;
  for (const FamilySpec& f : kFamilies) {
    if (!trainable || f.tensor_layout) names.emplace_back(f.model_type);
  }
  std::string s;
  for (std::size_t i = 0; i < names.size(); ++i) s += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return s;
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
    throw InputError(t.file->path().string() + ": tensor '" + name + "' has shape " + shape_text(t.info->shape) + " but config.json (" +
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
