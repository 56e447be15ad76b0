// The decoder-only transformer every supported family is (GPT-2, Llama, Mistral, Qwen2, Qwen3):
// a model folder opened as config, tokenizer and mapped weights, and the one forward pass composed
// of the shared blocks as the family's config says (docs/MODELS.md, docs/ARCHITECTURE.md).
#pragma once

#include "engine/model/families.hpp"
#include "engine/model/language_model.hpp"
#include "engine/model/weight_files.hpp"

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace attnlab::model {

// A toy model's files held in memory (a built-in model embedded in the binary, the trainer's
// model): what config.json, vocab.json and model.safetensors would hold.
struct ModelFiles {
  std::string_view config_json, vocab_json, weights;
  std::shared_ptr<const void> owner;  // keeps the three alive when they are not static
};

class DecoderModel final : public LanguageModel {
public:
  // Opens a model folder, a .safetensors file with config.json (and any tokenizer files) beside it,
  // or a GGUF file (by its first bytes, whatever its name: Ollama's blobs have no extension).
  // `name` is its display name when given (a Hugging Face repo id, ollama:NAME); else "GPT-2" for a
  // GPT-2 folder, a GGUF file's general.name or file name, and the folder's name for the others.
  // Throws InputError with one sentence naming the file and what is wrong (model_config.hpp,
  // weight_files.hpp, families.hpp, gguf_file.hpp, gguf_model.hpp). Tokenizer files are optional:
  // without them the model runs on ids.
  static std::unique_ptr<DecoderModel> open(const std::filesystem::path& path, const std::string& name = "");
  // Opens a GGUF file (gguf_model.hpp): its config, weights (quantized ones stay quantized, mapped)
  // and tokenizer from the one file.
  static std::unique_ptr<DecoderModel> open_gguf(const std::filesystem::path& file, const std::string& name = "");
  // Opens a toy model from its files in memory, checked as open() checks a folder, the weights
  // used where they are (never copied). `name` is its display name ("induction"); messages name
  // `name`/config.json and so on.
  static std::unique_ptr<DecoderModel> open_memory(const ModelFiles& files, const std::string& name);

  const ModelConfig& config() const override { return config_; }
  std::string display_name() const override;
  const Tokenizer* tokenizer() const override { return tokenizer_.get(); }
  std::string missing_tokenizer() const override { return missing_tokenizer_; }
  ForwardTrace forward(const std::vector<int>& ids, const ForwardOptions& options = {}, KvCache* cache = nullptr) const override;
  std::int64_t parameters() const override;
  std::string tensor_type() const override { return tensor_type_; }
  void save(const std::filesystem::path& dir, bool force) const override;

  const WeightFiles& weights() const { return weights_; }
  const std::filesystem::path& folder() const { return folder_; }
  // Set for a model opened with open_memory: its files' bytes.
  const ModelFiles* memory_files() const { return memory_ ? &*memory_ : nullptr; }


private:
  DecoderModel(ModelConfig config, WeightFiles weights, DecoderTensors tensors, std::filesystem::path folder);
  struct Activations;
  void layer_forward(int l, Activations& a, const ForwardOptions& opt, ForwardTrace& trace, KvCache* cache) const;
  ModelConfig config_;
  WeightFiles weights_;
  DecoderTensors tensors_;
  std::filesystem::path folder_;
  std::unique_ptr<Tokenizer> tokenizer_;
  std::string missing_tokenizer_;     // why there is no tokenizer
  std::string name_;                  // the display name given, if any
  std::optional<ModelFiles> memory_;  // a model in memory: its files
  std::filesystem::path gguf_;        // a GGUF model: its file
  std::string tensor_type_;           // what most of its weights are stored as ("F32", "Q4_K_M")
};

}  // namespace attnlab::model
