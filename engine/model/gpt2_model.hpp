// A GPT-2 opened from a folder in the Hugging Face layout (docs/MODELS.md): its config, tokenizer
// and mapped weights, and the forward pass that keeps every head's q, k, v and attention weights.
#pragma once

#include "engine/attention/matrix.hpp"
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/gpt2_config.hpp"
#include "engine/model/safetensors.hpp"

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::model {

// One layer's tensors in the file (Conv1D layout: weights are [in, out], y = x·W + b).
struct Gpt2LayerTensors {
  const TensorInfo *ln_1_w, *ln_1_b, *c_attn_w, *c_attn_b, *attn_proj_w, *attn_proj_b;
  const TensorInfo *ln_2_w, *ln_2_b, *c_fc_w, *c_fc_b, *mlp_proj_w, *mlp_proj_b;
};

// What a forward pass keeps.
struct ForwardOptions {
  bool keep_weights = true;        // every head's n × n attention weights
  bool keep_all_qkv = false;       // every head's q, k, v
  int qkv_layer = -1, qkv_head = -1;  // or just this one head's (−1: none)
  int top_k = 10;                  // next tokens kept, most probable first
  // Called after each layer with (layers done, layers in all); returning false cancels, and the
  // forward returns what it has with `cancelled` set.
  std::function<bool(int, int)> progress;
};

struct HeadTrace {
  Matrix q, k, v;  // n × d_head each, after the bias (empty unless kept)
  Matrix weights;  // n × n, causal: row i sums to 1 over keys 0 … i (empty unless kept)
};

struct NextToken {
  int id = 0;
  float prob = 0;
};

struct ForwardTrace {
  std::vector<int> ids;
  std::vector<std::vector<HeadTrace>> heads;  // [layer][head]
  std::vector<NextToken> next_tokens;         // after the last position, top_k of them
  bool cancelled = false;
};

// A toy model's files held in memory (a built-in model embedded in the binary, the trainer's
// model): what config.json, vocab.json and model.safetensors would hold.
struct ModelFiles {
  std::string_view config_json, vocab_json, weights;
  std::shared_ptr<const void> owner;  // keeps the three alive when they are not static
};

class Gpt2Model {
public:
  // Opens a model folder, or a .safetensors file with config.json (and the tokenizer files)
  // beside it. Throws InputError with one sentence naming the file and what is wrong: a missing
  // file, two weight files, a malformed header, a tensor missing, extra or of the wrong shape.
  static std::unique_ptr<Gpt2Model> open(const std::filesystem::path& path);
  // Opens a toy model from its files in memory, checked as open() checks a folder, the weights
  // used where they are (never copied). `name` is its display name ("induction"); messages name
  // `name`/config.json and so on.
  static std::unique_ptr<Gpt2Model> open_memory(const ModelFiles& files, const std::string& name);

  const Gpt2Config& config() const { return config_; }
  const BpeTokenizer& tokenizer() const { return tokenizer_; }
  const SafetensorsFile& weights() const { return file_; }
  const std::filesystem::path& folder() const { return folder_; }
  // Set for a model opened with open_memory: its files' bytes.
  const ModelFiles* memory_files() const { return memory_ ? &*memory_ : nullptr; }
  // "GPT-2" for Hugging Face GPT-2 folders, the folder's name for a toy model.
  std::string display_name() const;
  // "gpt2" or "attnlab-toy".
  std::string family() const { return config_.is_toy() ? "attnlab-toy" : "gpt2"; }

  // The ids of `text`, checked to fit the position table. Throws InputError starting with `what`.
  std::vector<int> tokenize(std::string_view text, std::string_view what = "--text") const;
  // Checks ids against the vocabulary and the position table; `what` names the flag in errors.
  void check_ids(const std::vector<int>& ids, std::string_view what) const;

  // The forward pass over `ids` (checked first). Memory: the weights are read where they are
  // mapped (F32), or converted one layer at a time (F16, BF16, or F32 not 4-byte aligned).
  ForwardTrace forward(const std::vector<int>& ids, const ForwardOptions& options = {}) const;

private:
  Gpt2Model(Gpt2Config config, BpeTokenizer tokenizer, SafetensorsFile file, std::filesystem::path folder);
  void bind_tensors();
  Gpt2Config config_;
  BpeTokenizer tokenizer_;
  SafetensorsFile file_;
  std::filesystem::path folder_;
  std::string name_;                  // the display name of a model in memory
  std::optional<ModelFiles> memory_;  // its files
  const TensorInfo *wte_ = nullptr, *wpe_ = nullptr, *ln_f_w_ = nullptr, *ln_f_b_ = nullptr;
  std::vector<Gpt2LayerTensors> layers_;
};

}  // namespace attnlab::model
