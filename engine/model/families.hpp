// The model families as data (docs/ARCHITECTURE.md, "Adding a model family"): each family's
// reader turns its config.json into a ModelConfig and finds the tensors its names give, as the
// decoder's blocks will read them. The forward itself (decoder_forward.cpp) is shared.
#pragma once

#include "engine/model/model_config.hpp"
#include "engine/model/weight_files.hpp"

#include <nlohmann/json_fwd.hpp>

#include <set>
#include <string>
#include <vector>

namespace attnlab::model {

// How a projection's weight is stored: GPT-2's Conv1D [in, out] with y = x·W, or a Linear
// [out, in] with y = x·Wᵀ (every other family).
enum class Layout { InOut, OutIn };

struct LinearRef {
  TensorRef w, b;  // b empty: no bias
  Layout layout = Layout::OutIn;
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
  TensorBinder(const WeightFiles& files, std::string sizes) : files_(files), sizes_(std::move(sizes)) {}
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
  std::string sizes_;
  std::set<std::string> used_;
};

// GPT-2 (and Attention Lab's toy models), engine/model/family_gpt2.cpp.
ModelConfig read_gpt2_config(std::string_view json_text, const std::string& source);
DecoderTensors bind_gpt2_tensors(const ModelConfig& c, const WeightFiles& files);

// Llama, Mistral, Qwen2 and Qwen3 (engine/model/family_llama.cpp): one reader, with what tells
// them apart (biases, q/k norms, sliding windows) in a table.
bool is_llama_family(const std::string& model_type);
ModelConfig read_llama_config(const nlohmann::json& j, const std::string& family, const std::string& source);
DecoderTensors bind_llama_tensors(const ModelConfig& c, const WeightFiles& files);

// The family's tensors: bind_gpt2_tensors or bind_llama_tensors.
DecoderTensors bind_tensors(const ModelConfig& c, const WeightFiles& files);

}  // namespace attnlab::model
