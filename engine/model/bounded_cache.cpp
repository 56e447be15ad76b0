// A KV cache that forgets (bounded_cache.hpp).
#include "engine/model/bounded_cache.hpp"

#include "engine/attention/rope.hpp"
#include "engine/model/families.hpp"

#include <cstring>

namespace attnlab::model {

void check_cache_bound(const LanguageModel& model, const CacheBound& bound) {
  const ModelConfig& c = model.config();
  if (bound.window < 1) throw InputError("--cache-window " + std::to_string(bound.window) + ": give how many of the last positions to keep, 1 or more");
  if (bound.sinks < 0) throw InputError("--cache-sinks " + std::to_string(bound.sinks) + ": give how many of the first positions to keep, 0 or more");
  if (bound.kept() + 1 > c.n_ctx) {
    throw InputError("--cache-window " + std::to_string(bound.window) + " and --cache-sinks " + std::to_string(bound.sinks) + " keep " +
                     std::to_string(bound.kept()) + " positions and run one more, past this model's " + std::to_string(c.n_ctx) + " (" +
                     family_spec(c.family).context_field + "); keep at most " + std::to_string(c.n_ctx - 1) + " in all");
  }
}

std::int64_t forget_middle(const LanguageModel& model, KvCache& cache, const CacheBound& bound) {
  const ModelConfig& c = model.config();
  if (bound.window < 1 || cache.length <= bound.kept()) return 0;
  const std::int64_t gone = cache.length - bound.kept(), width = c.kv_width();
  const auto bytes = [&](std::int64_t rows) { return static_cast<std::size_t>(rows * width) * sizeof(float); };
  for (auto* layers : {&cache.k, &cache.v}) {
    for (auto& layer : *layers) {
      float* first_forgotten = layer.data() + bound.sinks * width;
      std::memmove(first_forgotten, first_forgotten + gone * width, bytes(bound.window));
      layer.resize(static_cast<std::size_t>(bound.kept() * width));
    }
  }
  if (const auto rope = model.rope()) {
    const std::vector<std::int64_t> back(static_cast<std::size_t>(bound.window), -gone);
    const RopeAngles angles = rope_angles(rope_frequencies(rope->theta, rope->scaling, c.d_head), back.data(), bound.window);
    for (auto& layer : cache.k) {
      for (int g = 0; g < c.n_kv_head; ++g) rope_rotate(angles, 0, layer.data() + bound.sinks * width + g * c.d_head, bound.window, width);
    }
  }
  cache.length = bound.kept();
  return gone;
}

std::vector<DrawnToken> generate_bounded(const LanguageModel& model, const std::vector<int>& prompt, Sampler& sampler, int count,
                                         const SamplingOptions& sampling, int candidates, const CacheBound& bound,
                                         const std::function<bool(const DrawnToken&)>& written) {
  check_cache_bound(model, bound);
  if (count < 1) throw InputError("--generate " + std::to_string(count) + ": give how many tokens to write, 1 or more");
  ForwardOptions fo;
  fo.keep_weights = false;
  fo.keep_logits = true;
  fo.top_k = 0;
  KvCache cache;
  std::vector<float> logits = model.forward(prompt, fo, &cache).logits;
  forget_middle(model, cache, bound);
  std::vector<DrawnToken> out;
  for (int i = 0; i < count; ++i) {
    DrawnToken t = sampler.next(logits, sampling, candidates);
    logits = model.forward({t.id}, fo, &cache).logits;
    forget_middle(model, cache, bound);
    out.push_back(std::move(t));
    if (written && !written(out.back())) break;
  }
  return out;
}

}  // namespace attnlab::model
