// The gqa lesson: grouped-query attention. H query heads share G K/V heads: multi-head (G = H),
// grouped (1 < G < H) and multi-query (G = 1) on the same input, which query head reads which K/V
// head, and what sharing saves in the KV cache of real models. For `attnlab lesson gqa` and the
// GUI's lesson view.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/lesson_spec.hpp"
#include "engine/lessons/multihead.hpp"

#include <string>
#include <vector>

namespace attnlab {

struct GqaVariant {
  long long kv_heads = 0;              // G
  std::vector<long long> group;        // per query head: the K/V head it reads, h ÷ (H/G)
  std::vector<Result> heads;           // per query head: every stage (n × n, output n × d_head)
  Matrix output;                       // [H_1 … H_H] W_O, n × d_model
  double max_weight_change = 0;        // max |A_h − A_h of multi-head| over every head and cell
  double max_output_change = 0;        // max |output − multi-head's output|
  long long cached_values_per_token = 0;  // K and V: 2 · G · d_head numbers per token and layer
};

// A real model's KV cache, in bfloat16 (2 bytes a number), K and V for every layer.
struct KvCacheRow {
  KvCacheConfig config;
  long long bytes_per_token = 0;      // 2 · layers · kv_heads · head_dim · 2 bytes
  long long mha_bytes_per_token = 0;  // the same shape with a K/V head per query head
  double saving = 0;                  // heads ÷ kv_heads
  long long context_bytes = 0, mha_context_bytes = 0;  // at the lesson's context length
};

struct GqaLesson {
  long long heads = 0, d_model = 0, d_head = 0;
  std::vector<GqaVariant> variants;  // in the lesson's order of kv_heads
  long long context = 0;
  std::vector<KvCacheRow> configs;
};

// X (n × d_model): the token embeddings (the document's Q, as in the multi-head lesson). Query
// heads get the multi-head lesson's seeded projections; a group's K and V projections are the
// mean of its heads' (how Ainslie et al., 2023, turn a multi-head checkpoint into a grouped one),
// so G = H is multi-head attention itself. `options` as the document's, without rotary positions.
// Throws InputError when `heads` does not divide d_model or a K/V count does not divide `heads`.
GqaLesson gqa_lesson(const Matrix& X, const LessonSpec& spec, const Options& options, Backend& backend);

}  // namespace attnlab
