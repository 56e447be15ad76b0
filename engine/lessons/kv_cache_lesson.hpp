// The numbers of the lesson "What the KV cache holds" (view kv-cache; docs/MODELS.md,
// "Generation"): a model writing tokens over its KV cache against running the whole text again at
// every step (the same tokens, logits within float32's rounding), what each costs per token, the
// cache's bytes per token for real models' shapes (multi-head against grouped-query), and
// exposure bias from "QKV, Scaled Dot-Product & Causal Masking": teacher forcing against a model
// fed its own draws at a high temperature. The lesson runs them on a built-in model; the GUI's
// view also on the model open in the Model window.
#pragma once

#include "engine/model/language_model.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// Greedy generation with the cache against a whole forward over the text at every step.
struct CacheCheck {
  std::vector<int> prompt;
  std::vector<int> cached, whole;  // the tokens each way wrote
  // The largest |logit with the cache − logit of the whole forward|, over every step and token,
  // against the largest |logit| and the float32 rounding bound at that size (cache_logit_bound).
  double largest_difference = 0, largest_logit = 0, bound = 0;
};

// `count` greedy tokens after `prompt` both ways (which must fit the model's positions).
CacheCheck check_cache(const model::LanguageModel& m, const std::vector<int>& prompt, int count);

// How far a logit may move when its sums run in another order (a one-row product against a
// blocked one): a few float32 roundings per layer of the widest product, at the logits' size
// (docs/MODELS.md, "Forward pass").
double cache_logit_bound(const model::ModelConfig& c, double largest_logit);

// The cost of one more token after `prompt` positions: the matrix products' FLOPs of its own
// position over the cache, and of the whole text run again (LanguageModel::forward_flops); and,
// measured, the milliseconds of each (medians over `tokens` tokens; 0 when not measured).
struct CacheCost {
  std::int64_t prompt = 0;
  int tokens = 0;
  double flops_cached = 0, flops_whole = 0;
  double ms_cached = 0, ms_whole = 0;
};
CacheCost cache_cost(const model::LanguageModel& m, const std::vector<int>& prompt, int tokens, bool measure);

// A model's shape as far as its KV cache goes (config.json's values).
struct CacheShape {
  std::string name;
  std::int64_t layers = 0, heads = 0, kv_heads = 0, d_head = 0, context = 0;
};
CacheShape cache_shape(const model::ModelConfig& c, std::string name);

// The cache of one shape: K and V of every layer's K/V heads, per token and for a whole context,
// in float16 (what inference engines keep) and float32 (what Attention Lab keeps), and what it
// would be with one K/V head per query head (multi-head attention).
struct CacheSize {
  CacheShape shape;
  std::int64_t bytes_per_token_fp16 = 0, bytes_per_token_fp32 = 0;
  std::int64_t every_head_per_token_fp16 = 0;
  std::int64_t context_fp16 = 0;
};
CacheSize cache_size(const CacheShape& s);

// Exposure bias on a text the model knows how to continue: `ids` = prompt then its true
// continuation. Teacher forcing feeds the true text and takes the most probable token at each
// step; generation feeds the model its own draws at `temperature` (seeded); and from the first draw
// that differs from the true text on, greedy generation shows where that one draw leads.
struct ExposureBias {
  double temperature = 0;
  std::uint64_t seed = 0;
  std::vector<int> prompt, truth;  // truth: the continuation, one token per step
  std::vector<int> teacher;        // teacher forcing's most probable token at each step
  std::vector<int> drawn;          // the draws, fed back one by one
  std::vector<double> drawn_prob, drawn_model_prob;  // each draw's probability after T and the model's own
  int first_mistake = -1;          // the first step whose draw differs from the truth (−1: none)
  // After the first mistake: greedy tokens from the text up to and with it (empty without one).
  std::vector<int> greedy_after;
  int teacher_correct = 0, drawn_correct = 0, greedy_after_correct = 0;
};
ExposureBias exposure_bias(const model::LanguageModel& m, const std::vector<int>& ids, std::int64_t prompt, double temperature,
                           std::uint64_t seed);

}  // namespace attnlab
