// A GPT-2 model's config.json (docs/MODELS.md): its sizes, and for Attention Lab's own toy models
// the task they were trained on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace attnlab::model {

struct Gpt2Config {
  int n_layer = 0;
  int n_head = 0;
  int n_embd = 0;       // d_model
  int n_positions = 0;  // n_ctx: the longest text the position table covers
  int vocab_size = 0;
  double layer_norm_epsilon = 1e-5;
  // The "attnlab_task" object of a toy model, as JSON text; empty for GPT-2 proper.
  std::string task_json;

  int d_head() const { return n_embd / n_head; }
  bool is_toy() const { return !task_json.empty(); }
  // Parameters of the transformer (embeddings, blocks, final layer norm; the output reuses wte).
  std::int64_t parameters() const;
};

// Parses config.json text; `source` names the file in errors. Throws InputError naming the field
// (a missing or non-positive size, n_embd not divisible by n_head, an activation other than the
// tanh GELU, sizes beyond what a desktop can hold).
Gpt2Config parse_gpt2_config(std::string_view json_text, std::string_view source);

}  // namespace attnlab::model
