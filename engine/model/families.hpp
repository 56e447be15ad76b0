// The model families as data (docs/ARCHITECTURE.md, "Adding a model family"): one table row per
// family (FamilySpec), whose reader turns its config.json into a ModelConfig and whose binder finds
// the tensors its names give, as the decoder's blocks will read them. The forward itself
// (decoder_forward.cpp) and training (decoder_train.cpp) are shared.
#pragma once

#include "engine/model/model_config.hpp"
#include "engine/model/weight_files.hpp"

#include <nlohmann/json_fwd.hpp>

#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

// How a projection's weight is stored: GPT-2's Conv1D [in, out] with y = x·W, or a Linear
// [out, in] with y = x·Wᵀ (every other family).
enum class Layout { InOut, OutIn };

struct LinearRef {
  TensorRef w, b;  // b empty: no bias
  Layout layout = Layout::OutIn;
  // A GGUF file of the `llama` architecture: the output rows (q's or k's) are interleaved within
  // each head of this width, as llama.cpp's converter writes them for GGML's rotation of
  // neighbouring pairs; the product's columns are put back in Hugging Face's order (0: as stored).
  int interleaved = 0;
};

struct NormRef {
  TensorRef w, b;  // b empty for RMSNorm
};

struct LayerTensors {
  NormRef attn_norm, ffn_norm;
  LinearRef qkv;      // fused (GPT-2): one product gives q, k and v side by side
  LinearRef q, k, v;  // separate (every other family)
  TensorRef q_norm, k_norm;  // qwen3: [d_head] each
  LinearRef o;
  LinearRef up, gate, down;  // gate empty for GPT-2's GELU MLP (up = c_fc, down = c_proj)
};

struct DecoderTensors {
  TensorRef embed;     // [vocab, d_model]
  TensorRef position;  // [n_ctx, d_model] with learned positions; else empty
  NormRef final_norm;
  TensorRef lm_head;   // [vocab, d_model]: the embedding itself when tied
  std::vector<LayerTensors> layers;
};

// Finds tensors for a family's reader: each one checked for its shape, and what was taken
// remembered, so that a tensor no reader took can be named (another architecture, a config that
// does not belong to these weights).
class TensorBinder {
public:
  // `sizes`: the config's sizes a shape error quotes ("n_embd 768, vocab_size 50257, …").
  // `config` names where the sizes come from in a shape error ("config.json", a GGUF file's keys).
  TensorBinder(const WeightFiles& files, std::string sizes, std::string config = "config.json")
      : files_(files), sizes_(std::move(sizes)), config_(std::move(config)) {}
  // The tensor, which must be there with this shape (else InputError naming it).
  TensorRef need(const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why_missing);
  // The tensor when `present` (it must then be there), else an empty ref.
  TensorRef need_if(bool present, const std::string& name, const std::vector<std::int64_t>& shape, const std::string& why_missing);
  // Marks a tensor as known but unused (a copy of the tied output matrix, a mask buffer).
  void ignore(const std::string& name) { used_.insert(name); }
  // The first tensor nobody took, or "".
  std::string unused() const;
  const WeightFiles& files() const { return files_; }

private:
  const WeightFiles& files_;
  std::string sizes_, config_;
  std::set<std::string> used_;
};

// How a family's folder holds its tokenizer (a toy model of any family has vocab.json's symbols).
enum class TokenizerKind {
  Gpt2Bpe,        // vocab.json + merges.txt (bpe_tokenizer.hpp)
  TokenizerJson,  // tokenizer.json with tokenizer_config.json (tokenizer/tokenizer_json.hpp)
};

// A config.json field and the GGUF key after "{arch}." that holds it in a GGUF file of the family
// ("hidden_size" ← "llama.embedding_length"): how gguf_model.cpp reads a GGUF file's config through
// the family's own reader.
struct GgufField {
  const char* config_field;
  const char* gguf_key;
};

// A tensor of a model the trainer writes: its name in the file and its shape, in file order.
struct TensorSpec {
  std::string name;
  std::vector<std::int64_t> shape;
};

// One family: a row of the table (families.cpp). Adding a family is a page (family_<name>.cpp:
// its reader and binder, and for a family the trainer writes, its layout and config.json) plus a
// row here; nothing else names it.
struct FamilySpec {
  Family family;
  const char* model_type;    // config.json's "model_type", and the "family" the JSON prints
  const char* display_name;  // the display name of a model of it opened without one ("GPT-2"); null: its folder's name
  // config.json (parsed) into a ModelConfig; `source` names the file in errors.
  ModelConfig (*read_config)(const nlohmann::json& j, const FamilySpec& spec, const std::string& source);
  DecoderTensors (*bind_tensors)(const ModelConfig& c, const WeightFiles& files);
  TokenizerKind tokenizer;
  const char* context_field;  // the config.json field n_ctx comes from, as an error names it
  // For a family `attnlab train` writes (else null): every tensor of a model of `c` in file order,
  // and its config.json (with c.task_json as "attnlab_task").
  std::vector<TensorSpec> (*tensor_layout)(const ModelConfig& c);
  std::string (*config_json)(const ModelConfig& c);
  // Its GGUF files (engine/model/gguf_model.cpp): general.architecture's value (null: none);
  // whether llama.cpp's converter interleaved each head's q and k rows for GGML's rotation of
  // neighbouring pairs (undone on load); its config.json fields from the {arch}.* keys.
  const char* gguf_architecture;
  bool gguf_interleaved_qk;
  std::span<const GgufField> gguf_fields;
};

// The family's row.
const FamilySpec& family_spec(Family family);
// The row whose model_type is `model_type`, or null.
const FamilySpec* find_family(std::string_view model_type);
// The row whose GGUF architecture is `architecture`, or null.
const FamilySpec* find_gguf_family(std::string_view architecture);
// The GGUF architectures, as a sentence lists them: "llama, mistral, qwen2, qwen3 and gpt2".
std::string gguf_family_list();
// Every row, in the table's order.
std::span<const FamilySpec> family_table();
// The model types, as a sentence lists them: "gpt2, llama, mistral, qwen2 and qwen3"; with
// `trainable`, only those `attnlab train` writes (a row with a tensor layout): "gpt2 and llama".
std::string family_list(bool trainable = false);

// GPT-2 (and Attention Lab's toy GPT-2s), engine/model/family_gpt2.cpp.
ModelConfig read_gpt2_config(const nlohmann::json& j, const FamilySpec& spec, const std::string& source);
DecoderTensors bind_gpt2_tensors(const ModelConfig& c, const WeightFiles& files);
std::vector<TensorSpec> gpt2_tensor_layout(const ModelConfig& c);
std::string gpt2_config_json(const ModelConfig& c);

// Llama, Mistral, Qwen2 and Qwen3 (engine/model/family_llama.cpp): one reader, with what tells
// them apart (biases, q/k norms, sliding windows) in a table of its own.
ModelConfig read_llama_config(const nlohmann::json& j, const FamilySpec& spec, const std::string& source);
DecoderTensors bind_llama_tensors(const ModelConfig& c, const WeightFiles& files);
std::vector<TensorSpec> llama_tensor_layout(const ModelConfig& c);
std::string llama_config_json(const ModelConfig& c);

}  // namespace attnlab::model
