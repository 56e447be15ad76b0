// The gqa lesson: grouped-query attention. H query heads share G K/V heads: multi-head (G = H),
// grouped (1 < G < H) and multi-query (G = 1) on the same input, which query head reads which K/V
// head, and what sharing saves in the KV cache of real models (view gqa). For `attnlab lesson gqa`
// and the GUI's lesson view.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/lessons/multi_head.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kGqaView = "gqa";

// A real model's attention shape, for the KV cache's bytes per token (the gqa and kv-cache lessons).
struct KvCacheConfig {
  std::string name;  // "Llama 3.2 1B"
  long long layers = 0, heads = 0, kv_heads = 0, head_dim = 0;
};
// lesson.kv_configs: [{"name", "layers", "heads", "kv_heads", "head_dim"}], heads a multiple of kv_heads.
std::vector<KvCacheConfig> kv_cache_configs(const LessonFields& f);

// H = `heads` query heads with the multi-head lesson's seeded projections, the K/V head counts side
// by side (each dividing `heads`), real models' shapes, and the context length the cache is sized for.
struct GqaParams {
  unsigned long long seed = 42;                 // lesson.seed
  long long heads = 2;                          // lesson.heads
  std::vector<long long> kv_heads{4, 2, 1};     // lesson.kv_heads
  std::vector<KvCacheConfig> kv_configs;        // lesson.kv_configs
  long long context = 8192;                     // lesson.context
};
GqaParams gqa_params(const LessonFields& f);

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

// A config's cache per token and at `context` tokens, grouped as it is and with a K/V head per query
// head (the kv-cache lesson's too).
KvCacheRow cache_row(const KvCacheConfig& c, long long context);

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
GqaLesson gqa_lesson(const Matrix& X, const GqaParams& spec, const Options& options, Backend& backend);

struct GqaNumbers : LessonNumbers {
  GqaLesson lesson;
};

GqaNumbers compute_gqa(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"heads", "d_model", "d_head", "variants": [{"kv_heads", "kind", "queries_per_kv_head",
// "cached_values_per_token", "max_weight_change", "max_output_change", "heads", "output"}],
// "context_tokens", "kv_cache": [kv_cache_row_json]}
nlohmann::ordered_json gqa_to_json(const GqaNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// A real model's KV cache as both lessons print it: its shape, bytes and KiB per token grouped and
// with a K/V head per query head, the saving, and both at the context length.
nlohmann::ordered_json kv_cache_row_json(const KvCacheRow& r);

// A config's cache per token worked by hand, for the exercises of this lesson and kv-cache's.
std::vector<std::string> cache_working(const KvCacheConfig& c);

// The exercise of grouped-query attention, on one of the lesson's real configurations. (a) The K/V head
// a query head reads, (b) that query head's weights of a row over its group's keys (given), (c) the KV
// cache per token in KiB (bfloat16), (d) how many times smaller than with a K/V head per query head.
Exercise gqa_exercise(const ExerciseRequest& request);

}  // namespace attnlab
