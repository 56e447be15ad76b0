// A KV cache that forgets (docs/MODELS.md, "A cache that forgets"): StreamingLLM's policy, which
// keeps the first `sinks` positions and the last `window`, so that generation runs on in bounded
// memory; and whether the model still writes sense once the first tokens, where its heads put the
// weight they have nowhere else to put (the attention sink), are gone.
#pragma once

#include "engine/model/language_model.hpp"
#include "engine/model/sampling.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace attnlab::model {

struct CacheBound {
  std::int64_t window = 0;  // the last positions kept (0: the cache keeps everything)
  std::int64_t sinks = 4;   // the first positions kept (StreamingLLM's four)
  std::int64_t kept() const { return sinks + window; }
};

// The sentence for a bound that cannot run: window < 1, sinks < 0, or S + W kept positions plus the
// one being run more than the model's positions. `what` names the window's flag.
void check_cache_bound(const LanguageModel& model, const CacheBound& bound);

// Forgets the cached positions between the first `sinks` and the last `window` when the cache holds
// more than both. The positions kept are renumbered 0 … S + W − 1, the places they hold in the
// cache: a rotary model's kept keys turn back by the number of positions forgotten (a rotation by
// −e composes with the one at insertion, so each key reads as if it had been rotated at its new
// place); a model with learned positions keeps the rows as they are (their positions are in the
// stream already). The next position then runs at S + W. Returns the positions forgotten.
std::int64_t forget_middle(const LanguageModel& model, KvCache& cache, const CacheBound& bound);

// Writes `count` tokens after `prompt` over a cache bounded by `bound`: the prompt runs as one
// forward from position 0 (it must fit the model's positions) and the cache is cut to the bound;
// then each token is drawn from the last logits, runs at the cache's length over the kept
// positions, and the cache is cut again (each draw lists `candidates` tokens). `written` is called
// after each token has run; false stops there.
std::vector<DrawnToken> generate_bounded(const LanguageModel& model, const std::vector<int>& prompt, Sampler& sampler, int count,
                                         const SamplingOptions& sampling, int candidates, const CacheBound& bound,
                                         const std::function<bool(const DrawnToken&)>& written = {});

}  // namespace attnlab::model
