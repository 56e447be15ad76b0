// A language model's config.json, whatever its family (docs/MODELS.md, "Model families"): the
// sizes and the conventions that tell the families apart, as data the one decoder reads.
#pragma once

#include "engine/attention/rope.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab::model {

enum class NormKind { Layer, Rms };           // LayerNorm with a bias (GPT-2), or RMSNorm
enum class FfnKind { Gelu, SiluGated };       // up → tanh GELU → down, or down(silu(gate) ⊙ up)
enum class PositionKind { Learned, Rope };    // a position table added to the embeddings, or rotary

// The families Attention Lab opens: each one's model_type, reader, binder and names are a row of
// the table in families.cpp, and nowhere else.
enum class Family { Gpt2, Llama, Mistral, Qwen2, Qwen3 };

struct ModelConfig {
  Family family = Family::Gpt2;  // config.json's model_type (absent: GPT-2)
  int n_layer = 0;
  int n_head = 0;     // query heads
  int n_kv_head = 0;  // K/V heads: query head h reads K/V head ⌊h / (n_head / n_kv_head)⌋
  int d_model = 0;
  int d_head = 0;
  int d_ff = 0;       // the MLP's inner width
  int n_ctx = 0;      // the most positions: n_positions (GPT-2), max_position_embeddings
  int vocab_size = 0;
  double norm_eps = 1e-5;
  NormKind norm = NormKind::Layer;
  FfnKind ffn = FfnKind::Gelu;
  PositionKind positions = PositionKind::Learned;
  double rope_theta = 10000;  // with rotary positions
  RopeScaling rope_scaling;
  bool fused_qkv = false;     // GPT-2's c_attn: q, k and v from one [d, 3d] Conv1D
  bool qkv_bias = false, o_bias = false, mlp_bias = false, norm_bias = false;
  bool qk_norm = false;       // qwen3: RMSNorm over each head's q and k before the rotation
  bool tied = false;          // the output logits reuse the token embedding
  int sliding_window = 0;     // 0: none; else key j is visible from query i only when i − j < W
  int first_window_layer = 0; // the window applies to layers from this one on (qwen2's max_window_layers)
  std::string task_json;      // a toy model's "attnlab_task" object, as JSON text; else empty

  // Attention Lab's own toy models (a config.json with "attnlab_task"), of any family.
  bool is_toy() const { return !task_json.empty(); }
  int q_width() const { return n_head * d_head; }
  int kv_width() const { return n_kv_head * d_head; }
  int kv_group(int head) const { return head / (n_head / n_kv_head); }
  // The sliding window of `layer` (0: none).
  int window(int layer) const { return layer >= first_window_layer ? sliding_window : 0; }
};

// Parses config.json text; `source` names the file in errors. model_type picks the family's
// reader (absent: GPT-2); "attnlab_task" (an object) marks a toy model of any family. Throws InputError naming the field: an unknown model_type (the
// sentence names the supported ones), a missing or out-of-range size, heads not a multiple of the
// K/V heads, hidden_size not divisible by the heads when head_dim is absent, an odd head_dim
// with rotary positions, an unknown rope_scaling type, an activation the family does not use.
ModelConfig parse_model_config(std::string_view json_text, std::string_view source);

// What the JSON and the Model window print as the model's family: its model_type from the
// families' table, or "attnlab-toy" for Attention Lab's own toy models of any family (what a toy
// GPT-2 has always printed; a toy llama says what it is by its "positions" and "n_kv_head").
std::string family_name(const ModelConfig& c);

// The parameters of a model of this config, from its sizes and conventions alone (a tied output
// matrix counted once): what DecoderModel::parameters() counts in its files.
std::int64_t parameter_count(const ModelConfig& c);

}  // namespace attnlab::model
