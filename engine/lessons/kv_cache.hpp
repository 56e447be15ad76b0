// The numbers of the lesson "What the KV cache holds" (view kv-cache; docs/MODELS.md,
// "Generation"): a model writing tokens over its KV cache against running the whole text again at
// every step (the same tokens, logits within float32's rounding), what each costs per token, and
// exposure bias from "QKV, Scaled Dot-Product & Causal Masking": teacher forcing against a model
// fed its own draws at a high temperature. The cache's bytes per token are the gqa lesson's
// cache_row (gqa.hpp). The lesson runs them on a built-in model; the GUI's view also on the model
// open in the Model window.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/gqa.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/model/language_model.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kKvCacheView = "kv-cache";

// A built-in model and a text it knows how to go on with (`ids`, of which the first `prompt` are
// given and the rest written), as the lessons that run a model read them.
struct LessonModelText {
  std::string model;               // lesson.model
  std::vector<long long> ids;      // lesson.ids (empty: the model's task's probe sequence)
  long long prompt = 0;            // lesson.prompt (0: half of the ids, and one)
};
// Those three fields, `fallback` where absent.
LessonModelText lesson_model_text(const LessonFields& f, LessonModelText fallback);
// The text's ids (the model's probe sequence where none are given) and the prompt's length, checked
// against the model: the prompt leaves some of the ids to write.
std::vector<int> lesson_text_ids(const model::LanguageModel& m, const LessonModelText& t);
std::int64_t lesson_prompt(const LessonModelText& t, const std::vector<int>& ids);

// The built-in model the lesson runs on and its text (`seed` seeds the draws), the temperature of
// its exposure-bias draws; real models' caches from `kv_configs` at `context` tokens.
struct KvCacheParams {
  std::string model = "induction";         // lesson.model
  std::vector<long long> ids;              // lesson.ids (empty: the model's task's probe sequence)
  long long prompt = 0;                    // lesson.prompt (0: half of the ids, and one)
  double sample_temperature = 3.0;         // lesson.sample_temperature
  unsigned long long seed = 42;            // lesson.seed
  std::vector<KvCacheConfig> kv_configs;   // lesson.kv_configs
  long long context = 8192;                // lesson.context
};
KvCacheParams kv_cache_params(const LessonFields& f);

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

// A model's attention shape as the gqa lesson's KV cache rows take it (gqa.hpp's cache_row).
KvCacheConfig cache_config(const model::ModelConfig& c, std::string name);

// Written tokens read against the true text shifted by `shift` positions: got[i] = truth[i + shift].
// A row that skipped a token reads the true text one position early (shift 1), one that put in a
// token of its own one late (−1); `matches` of `compared` positions agree so.
struct Shifted {
  int shift = 0;
  int matches = 0, compared = 0;
};
// The shift from −2 to 2, not 0, at which most of `got` agrees with `truth` (got[i] is at position
// `from` + i of the truth); matches is 0 where no shift agrees more than in place.
Shifted best_shift(const std::vector<int>& got, const std::vector<int>& truth, int from);

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
  // The greedy tokens after the mistake against the truth shifted: a model that skipped a token
  // writes the right text one position early, which in place counts as all wrong.
  Shifted greedy_after_shifted;
};
ExposureBias exposure_bias(const model::LanguageModel& m, const std::vector<int>& ids, std::int64_t prompt, double temperature,
                           std::uint64_t seed);

// The pipeline's last row from the cached K and V alone against the whole computation, then the
// lesson's built-in model: its cache checked, the cost of a token, the caches of real models,
// exposure bias.
struct KvCacheNumbers : LessonNumbers {
  std::string model;            // the built-in model's name
  double last_row_difference = 0;  // the largest |output| difference of the pipeline's last row
  CacheCheck check;
  CacheCost cost;               // measured when the detail asks
  long long context = 0;           // the context the caches are sized for (lesson.context)
  std::vector<KvCacheRow> caches;  // the lesson's model first, then lesson.kv_configs (gqa.hpp)
  ExposureBias exposure;
};

// Throws InputError unless the document is self-attention under a causal mask, and for a text the
// model cannot take.
KvCacheNumbers compute_kv_cache(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"model", "last_row_difference", "check", "cost" (with "measured" when it was), "context_tokens",
// "kv_cache", "exposure", "see_also"}
nlohmann::ordered_json kv_cache_to_json(const KvCacheNumbers& n, const Scenario& s, const Result& r, const LessonDetail& detail);

// What the GUI's view runs on the model the Model window has open (its text `ids`), or on the
// lesson's own model, when a button asks:
// "Check the open model": four tokens each way after at most 48 tokens of its text.
CacheCheck check_open_model(const model::LanguageModel& m, const std::vector<int>& ids);
// "Measure": three tokens each way after at most 256 tokens of the open model's text, or, with
// none open (m null), after the lesson's prompt on its own model.
CacheCost measure_cache_cost(const model::LanguageModel* m, const std::vector<int>& ids, const KvCacheNumbers& n);
// The lesson's caches with the open model's (when it is no toy model) second.
std::vector<KvCacheRow> caches_with_open_model(const KvCacheNumbers& n, const model::LanguageModel* m);

// The exercise of the KV cache: four tokens under a causal mask and one of the lesson's real
// configurations. (a) The newest token's weights over the cached keys, (b) the cache per token in KiB
// (bfloat16), (c) the cache at a context length, in MiB.
Exercise kv_cache_exercise(const ExerciseRequest& request);

}  // namespace attnlab
