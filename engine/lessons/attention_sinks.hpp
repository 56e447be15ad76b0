// The numbers of the lesson "Attention sinks" (view attention-sinks; docs/MODELS.md, "A cache that
// forgets"): how much of each head's weight lands on the first token, over every row and over the
// rows where the head has nothing to do, and what a model writes with a bounded cache that keeps
// the first tokens (StreamingLLM's sinks) against one that evicts them, each against the whole
// cache. Computed live from a built-in model whose sequences open with a start token.
#pragma once

#include "engine/attention/backend.hpp"
#include "engine/io/scenario.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/kv_cache.hpp"
#include "engine/lessons/lesson_page.hpp"
#include "engine/model/bounded_cache.hpp"
#include "engine/model/language_model.hpp"

#include <string_view>
#include <vector>

namespace attnlab {

inline constexpr std::string_view kAttentionSinksView = "attention-sinks";

// The model and its text (kv-cache's fields, read the same way: lesson_model_text), and the bounded
// cache: `window` last positions and `sinks` first ones kept; the evicted run keeps no first
// positions and `window` + `sinks` last ones, a cache of the same size.
struct AttentionSinksParams {
  LessonModelText text{"grammar-bos", {}, 0};
  long long window = 8;  // lesson.cache_window
  long long sinks = 1;   // lesson.cache_sinks
};
AttentionSinksParams attention_sinks_params(const LessonFields& f);

// One head's share of its weight on key 0 (the first token): the mean over rows 1 … n − 1 (row 0
// has nothing else to see), and over the idle rows alone.
struct FirstTokenShare {
  int layer = 0, head = 0;
  double all_rows = 0, idle_rows = 0;
};

// Rows 1 … n − 1 whose token appears nowhere before them: nothing earlier to copy, so an
// induction head has nothing to do there.
std::vector<int> idle_rows(const std::vector<int>& ids);

// Every head's first-token share on `ids` (n × n weights of a forward), in layer then head order.
std::vector<FirstTokenShare> first_token_shares(const model::LanguageModel& m, const std::vector<int>& ids);

// A continuation written greedily, and how many of its tokens equal the whole cache's in place.
struct Continuation {
  std::vector<int> tokens;
  int agree = 0;
};

struct AttentionSinksNumbers : LessonNumbers {
  std::string model;
  std::vector<int> ids;    // the text the shares are measured on
  std::vector<int> idle;   // its idle rows
  std::vector<FirstTokenShare> heads;
  int sink = 0;            // the index in `heads` of the largest idle-row share: the sink head
  Matrix sink_weights;     // its n × n weights on `ids`
  std::vector<int> prompt;
  model::CacheBound kept, evicted;
  Continuation full, with_sinks, without_sinks;
};

// Throws InputError for a model or text the lesson cannot run (a bound too large for the model's
// positions, a prompt that leaves nothing to write).
AttentionSinksNumbers compute_attention_sinks(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail);
// {"model", "ids" (the text), "idle_rows", "heads": [{"layer", "head", "all_rows", "idle_rows"}], "sink":
// {"layer", "head", "all_rows", "idle_rows", "weights"}, "prompt", "cache": {"kept": {"sinks",
// "window"}, "evicted": {…}}, "full", "with_sinks", "without_sinks" ({"tokens", "agree", "of"})}
nlohmann::ordered_json attention_sinks_to_json(const AttentionSinksNumbers& n, const Scenario& s, const Result& r,
                                               const LessonDetail& detail);

// The exercise: one query's scores over four keys, key 0 a sink. (a) Its weights, (b) the weight on
// another key once the sink is evicted (softmax over the keys left), (c) how many times larger
// every kept weight became.
Exercise attention_sinks_exercise(const ExerciseRequest& request);

}  // namespace attnlab
