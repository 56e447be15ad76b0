// The KV-cache lesson's numbers; see kv_cache_lesson.hpp.
#include "engine/lessons/kv_cache_lesson.hpp"

#include "engine/model/generate.hpp"
#include "engine/model/sampling.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace attnlab {

namespace {

// A sequence that keeps nothing but its cache and logits: what generation itself needs.
model::CachedSequence bare_sequence(const model::LanguageModel& m) {
  model::SequenceOptions so;
  so.keep_weights = false;
  return model::CachedSequence(m, so);
}

model::ForwardOptions whole_forward() {
  model::ForwardOptions o;
  o.keep_weights = false;
  o.keep_logits = true;
  o.top_k = 0;
  return o;
}

int most_probable(const std::vector<float>& logits) { return model::top_ids(logits, 1).front(); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

template <class Work>
double ms_of(Work&& work) {
  const auto t0 = std::chrono::steady_clock::now();
  work();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

double cache_logit_bound(const model::ModelConfig& c, double largest_logit) {
  const double w = std::max({c.d_model, c.d_ff, c.q_width()});
  return 8 * std::ldexp(1.0, -24) * std::sqrt(w) * (c.n_layer + 1) * (1 + largest_logit);
}

CacheCheck check_cache(const model::LanguageModel& m, const std::vector<int>& prompt, int count) {
  model::check_generate(m, static_cast<std::int64_t>(prompt.size()), count);
  CacheCheck out;
  out.prompt = prompt;
  model::CachedSequence seq = bare_sequence(m);
  seq.assign(prompt);
  std::vector<int> ids = prompt;
  for (int step = 0; step < count; ++step) {
    const std::vector<float> whole = m.forward(ids, whole_forward()).logits;
    const std::vector<float>& cached = seq.logits();
    for (std::size_t i = 0; i < whole.size(); ++i) {
      out.largest_difference = std::max(out.largest_difference, std::abs(static_cast<double>(cached[i]) - whole[i]));
      out.largest_logit = std::max(out.largest_logit, std::abs(static_cast<double>(whole[i])));
    }
    out.whole.push_back(most_probable(whole));
    out.cached.push_back(most_probable(cached));
    // Both go on from the cached token, so that every step compares the same text.
    ids.push_back(out.cached.back());
    seq.push(out.cached.back());
  }
  out.bound = cache_logit_bound(m.config(), out.largest_logit);
  return out;
}

CacheCost cache_cost(const model::LanguageModel& m, const std::vector<int>& prompt, int tokens, bool measure) {
  model::check_generate(m, static_cast<std::int64_t>(prompt.size()), tokens);
  CacheCost c;
  c.prompt = static_cast<std::int64_t>(prompt.size());
  c.tokens = tokens;
  c.flops_cached = m.forward_flops(1, c.prompt);
  c.flops_whole = m.forward_flops(c.prompt + 1);
  if (!measure) return c;
  model::CachedSequence seq = bare_sequence(m);
  seq.assign(prompt);
  std::vector<int> ids = prompt;
  std::vector<double> cached, whole;
  for (int t = 0; t < tokens; ++t) {
    ids.push_back(most_probable(seq.logits()));
    cached.push_back(ms_of([&] { seq.push(ids.back()); }));
    whole.push_back(ms_of([&] { (void)m.forward(ids, whole_forward()); }));
  }
  c.ms_cached = median(cached);
  c.ms_whole = median(whole);
  return c;
}

CacheShape cache_shape(const model::ModelConfig& c, std::string name) {
  return {std::move(name), c.n_layer, c.n_head, c.n_kv_head, c.d_head, c.n_ctx};
}

CacheSize cache_size(const CacheShape& s) {
  CacheSize z;
  z.shape = s;
  const std::int64_t values = 2 * s.layers * s.kv_heads * s.d_head;  // K and V
  z.bytes_per_token_fp16 = values * 2;
  z.bytes_per_token_fp32 = values * 4;
  z.every_head_per_token_fp16 = 2 * s.layers * s.heads * s.d_head * 2;
  z.context_fp16 = z.bytes_per_token_fp16 * s.context;
  return z;
}

ExposureBias exposure_bias(const model::LanguageModel& m, const std::vector<int>& ids, std::int64_t prompt, double temperature,
                           std::uint64_t seed) {
  ExposureBias e;
  e.temperature = temperature;
  e.seed = seed;
  e.prompt.assign(ids.begin(), ids.begin() + prompt);
  e.truth.assign(ids.begin() + prompt, ids.end());
  const auto steps = static_cast<int>(e.truth.size());
  model::check_generate(m, prompt, steps);
  // Teacher forcing: the true text in, the most probable token out.
  model::CachedSequence teacher = bare_sequence(m);
  teacher.assign(e.prompt);
  for (int i = 0; i < steps; ++i) {
    e.teacher.push_back(most_probable(teacher.logits()));
    teacher.push(e.truth[static_cast<std::size_t>(i)]);
  }
  // Inference: the model's own draws in.
  model::CachedSequence own = bare_sequence(m);
  own.assign(e.prompt);
  model::Sampler sampler(seed);
  const model::SamplingOptions s{temperature, 0, 1.0, seed};
  for (int i = 0; i < steps; ++i) {
    const model::DrawnToken t = sampler.next(own.logits(), s, 0);
    e.drawn.push_back(t.id);
    e.drawn_prob.push_back(t.prob);
    e.drawn_model_prob.push_back(t.model_prob);
    if (e.first_mistake < 0 && t.id != e.truth[static_cast<std::size_t>(i)]) e.first_mistake = i;
    own.push(t.id);
  }
  // One bad draw, then the model's best from there on.
  if (e.first_mistake >= 0) {
    std::vector<int> text = e.prompt;
    text.insert(text.end(), e.drawn.begin(), e.drawn.begin() + e.first_mistake + 1);
    model::CachedSequence after = bare_sequence(m);
    after.assign(text);
    for (int i = e.first_mistake + 1; i < steps; ++i) {
      e.greedy_after.push_back(most_probable(after.logits()));
      if (i + 1 < steps) after.push(e.greedy_after.back());
    }
  }
  for (int i = 0; i < steps; ++i) {
    const int truth = e.truth[static_cast<std::size_t>(i)];
    e.teacher_correct += e.teacher[static_cast<std::size_t>(i)] == truth;
    e.drawn_correct += e.drawn[static_cast<std::size_t>(i)] == truth;
  }
  for (std::size_t j = 0; j < e.greedy_after.size(); ++j) {
    e.greedy_after_correct += e.greedy_after[j] == e.truth[static_cast<std::size_t>(e.first_mistake) + 1 + j];
  }
  return e;
}

}  // namespace attnlab
