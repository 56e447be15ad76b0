// The KV-cache lesson's numbers; see kv_cache.hpp.
#include "engine/lessons/kv_cache.hpp"

#include "engine/io/json_matrix.hpp"
#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/model/generate.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/sampling.hpp"
#include "engine/model/training_tasks.hpp"

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

// The pipeline's last query row computed alone from K and V (all the cache holds, every key being
// visible to the last query under a causal mask), against the whole computation's last row.
double last_row_difference(const Scenario& s, const Result& r, Backend& backend) {
  const Problem whole = s.problem();
  const Eigen::Index last = whole.Q.rows() - 1;
  if (last < 0 || whole.Q.rows() != whole.K.rows() || whole.options.mask.kind != MaskKind::Causal) {
    throw InputError("the kv-cache lesson needs self-attention under a causal mask (as many queries as keys)");
  }
  Problem one = whole;
  one.Q = whole.Q.bottomRows(1);
  one.options.mask = Mask{};  // the last query sees every key
  if (one.options.rope) {      // and keeps its own position
    one.options.rope->query_positions = {rope_positions(whole.options.rope->query_positions, whole.Q.rows()).back()};
  }
  const Result alone = backend.compute(one);
  return static_cast<double>((alone.output.row(0) - r.output.row(last)).cwiseAbs().maxCoeff());
}

// The model's text as a prompt that leaves room for `more` tokens within its positions, at most
// `most` tokens long.
std::vector<int> room_for(const model::LanguageModel& m, std::vector<int> ids, int more, std::size_t most) {
  const auto room = static_cast<std::size_t>(std::max(1, m.config().n_ctx - more));
  ids.resize(std::min({ids.size(), room, most}));
  return ids;
}

nlohmann::ordered_json token_ids_json(const std::vector<int>& ids) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const int id : ids) out.push_back(id);
  return out;
}

nlohmann::ordered_json short_numbers_json(const std::vector<double>& v) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const double x : v) out.push_back(short_double(static_cast<float>(x)));
  return out;
}

}  // namespace

LessonModelText lesson_model_text(const LessonFields& f, LessonModelText p) {
  const std::string& src = f.source();
  if (f.has("model")) {
    if (!f.at("model").is_string() || f.at("model").get<std::string>().empty()) throw InputError(src + ": lesson.model must be a built-in model's name");
    p.model = f.at("model").get<std::string>();
  }
  if (f.has("ids")) {
    const nlohmann::json& ids = f.at("ids");
    if (!ids.is_array() || ids.size() < 2) throw InputError(src + ": lesson.ids must be a list of at least two token ids");
    p.ids.clear();
    for (size_t i = 0; i < ids.size(); ++i) {
      const long long id = json_to_integer(ids[i], src, "lesson.ids[" + std::to_string(i) + "]");
      if (id < 0 || id > (1 << 24)) throw InputError(src + ": lesson.ids[" + std::to_string(i) + "] is " + std::to_string(id) + "; a token id is 0 up");
      p.ids.push_back(id);
    }
  }
  p.prompt = f.positive_integer("prompt", 1 << 24, p.prompt);
  if (!p.ids.empty() && p.prompt >= static_cast<long long>(p.ids.size())) {
    throw InputError(src + ": lesson.prompt is " + std::to_string(p.prompt) + "; it must leave some of lesson.ids' " +
                     std::to_string(p.ids.size()) + " tokens to write");
  }
  return p;
}

std::vector<int> lesson_text_ids(const model::LanguageModel& m, const LessonModelText& t) {
  std::vector<int> ids(t.ids.begin(), t.ids.end());
  if (ids.empty()) {
    if (!m.config().is_toy()) throw InputError("lesson.ids: give the text (token ids) for " + t.model);
    ids = model::probe_sequence(model::parse_task_json(m.config().task_json, t.model));
  }
  m.check_ids(ids, "lesson.ids");
  return ids;
}

std::int64_t lesson_prompt(const LessonModelText& t, const std::vector<int>& ids) {
  const std::int64_t prompt = t.prompt > 0 ? t.prompt : static_cast<std::int64_t>(ids.size()) / 2 + 1;
  if (prompt >= static_cast<std::int64_t>(ids.size())) throw InputError("lesson.prompt: it must leave some of lesson.ids to write");
  return prompt;
}

KvCacheParams kv_cache_params(const LessonFields& f) {
  KvCacheParams p;
  p.seed = f.seed(p.seed);
  p.kv_configs = kv_cache_configs(f);
  p.context = f.positive_integer("context", 1 << 24, p.context);
  LessonModelText t = lesson_model_text(f, {p.model, p.ids, p.prompt});
  p.model = std::move(t.model);
  p.ids = std::move(t.ids);
  p.prompt = t.prompt;
  const std::string& src = f.source();
  p.sample_temperature = f.number("sample_temperature", p.sample_temperature);
  if (!(p.sample_temperature > 0) || p.sample_temperature > 1000) throw InputError(src + ": lesson.sample_temperature must be above 0");
  return p;
}

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

KvCacheConfig cache_config(const model::ModelConfig& c, std::string name) {
  return {std::move(name), c.n_layer, c.n_head, c.n_kv_head, c.d_head};
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
  if (e.first_mistake >= 0) e.greedy_after_shifted = best_shift(e.greedy_after, e.truth, e.first_mistake + 1);
  return e;
}

Shifted best_shift(const std::vector<int>& got, const std::vector<int>& truth, int from) {
  const auto agree = [&](int shift, int& compared) {
    int matches = 0;
    compared = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto at = static_cast<std::int64_t>(from) + static_cast<std::int64_t>(i) + shift;
      if (at < 0 || at >= static_cast<std::int64_t>(truth.size())) continue;
      ++compared;
      matches += got[i] == truth[static_cast<std::size_t>(at)];
    }
    return matches;
  };
  int in_place_compared = 0;
  const int in_place = agree(0, in_place_compared);
  Shifted best;
  for (const int shift : {1, -1, 2, -2}) {
    int compared = 0;
    const int matches = agree(shift, compared);
    if (matches > in_place && matches > best.matches) best = {shift, matches, compared};
  }
  return best;
}

KvCacheNumbers compute_kv_cache(const Scenario& s, const Result& r, Backend& backend, const LessonDetail& detail) {
  const KvCacheParams l = kv_cache_params(LessonFields(s.lesson));
  KvCacheNumbers n;
  n.model = l.model;
  n.last_row_difference = last_row_difference(s, r, backend);
  const auto m = model::open_model(l.model);
  const LessonModelText text{l.model, l.ids, l.prompt};
  const std::vector<int> ids = lesson_text_ids(*m, text);
  const std::int64_t prompt = lesson_prompt(text, ids);
  const std::vector<int> given(ids.begin(), ids.begin() + prompt);
  const int rest = static_cast<int>(ids.size()) - static_cast<int>(prompt);
  n.check = check_cache(*m, given, rest);
  n.cost = cache_cost(*m, given, rest, detail.measure && detail.complete);
  n.context = l.context;
  n.caches.push_back(cache_row(cache_config(m->config(), m->display_name()), l.context));
  for (const KvCacheConfig& c : l.kv_configs) n.caches.push_back(cache_row(c, l.context));
  n.exposure = exposure_bias(*m, ids, prompt, l.sample_temperature, l.seed);
  return n;
}

// The cache check, the cost per token, the caches of real models, and exposure bias; the ms of
// the cost only when measured (they change run to run; a lesson's text never quotes them).
nlohmann::ordered_json kv_cache_to_json(const KvCacheNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  using json = nlohmann::ordered_json;
  const CacheCheck& c = n.check;
  json check = {{"prompt", token_ids_json(c.prompt)},         {"tokens_cached", token_ids_json(c.cached)},
                {"tokens_whole", token_ids_json(c.whole)},    {"same_tokens", c.cached == c.whole},
                {"largest_difference", c.largest_difference}, {"largest_logit", c.largest_logit},
                {"bound", c.bound}};
  const CacheCost& k = n.cost;
  json cost = {{"prompt", k.prompt}, {"tokens", k.tokens}, {"flops_cached", k.flops_cached}, {"flops_whole", k.flops_whole},
               {"flops_ratio", k.flops_whole / k.flops_cached}};
  if (k.ms_cached > 0) cost["measured"] = {{"ms_cached", k.ms_cached}, {"ms_whole", k.ms_whole}, {"ratio", k.ms_whole / k.ms_cached}};
  json caches = json::array();
  for (const KvCacheRow& r : n.caches) caches.push_back(kv_cache_row_json(r));
  const ExposureBias& e = n.exposure;
  json exposure = {{"temperature", e.temperature},
                   {"seed", e.seed},
                   {"prompt", token_ids_json(e.prompt)},
                   {"truth", token_ids_json(e.truth)},
                   {"teacher", token_ids_json(e.teacher)},
                   {"drawn", token_ids_json(e.drawn)},
                   {"drawn_prob", short_numbers_json(e.drawn_prob)},
                   {"drawn_model_prob", short_numbers_json(e.drawn_model_prob)},
                   {"first_mistake", e.first_mistake},
                   {"greedy_after", token_ids_json(e.greedy_after)},
                   {"greedy_after_steps", e.greedy_after.size()},
                   {"steps", e.truth.size()},
                   {"teacher_correct", e.teacher_correct},
                   {"drawn_correct", e.drawn_correct},
                   {"greedy_after_correct", e.greedy_after_correct},
                   {"greedy_after_shifted", {{"shift", e.greedy_after_shifted.shift},
                                             {"matches", e.greedy_after_shifted.matches},
                                             {"compared", e.greedy_after_shifted.compared}}}};
  return {{"model", n.model},       {"last_row_difference", n.last_row_difference}, {"check", check},
          {"cost", cost},          {"context_tokens", n.context},                  {"kv_cache", caches},
          {"exposure", exposure}, {"see_also", "gqa"}};
}

CacheCheck check_open_model(const model::LanguageModel& m, const std::vector<int>& ids) {
  return check_cache(m, room_for(m, ids, 4, 48), 4);
}

CacheCost measure_cache_cost(const model::LanguageModel* m, const std::vector<int>& ids, const KvCacheNumbers& n) {
  if (m) return cache_cost(*m, room_for(*m, ids, 3, 256), 3, true);
  return cache_cost(*model::open_model(n.model), n.check.prompt, 3, true);
}

std::vector<KvCacheRow> caches_with_open_model(const KvCacheNumbers& n, const model::LanguageModel* m) {
  std::vector<KvCacheRow> rows = n.caches;
  if (m && !m->config().is_toy()) rows.insert(rows.begin() + 1, cache_row(cache_config(m->config(), m->display_name()), n.context));
  return rows;
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise kv_cache_exercise(const ExerciseRequest& request) {
  std::vector<KvCacheConfig> configs = kv_cache_params(LessonFields(request.preset.lesson)).kv_configs;
  if (configs.empty()) configs.push_back({"Llama 3 8B", 32, 32, 8, 128});
  const Mask causal = parse_mask_spec("causal");
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    const KvCacheConfig& c = rnd.pick(configs);
    const long long context = 1LL << rnd.integer(10, 13);
    const MatrixD given_q = rnd.integers(4, 2, -1, 2), given_k = rnd.integers(4, 2, -1, 2), given_v = rnd.integers(4, 2, 0, 2);
    d.set_given(given_q, given_k, given_v, exercise_options(true, 1, causal), first_tokens(request.preset.query_tokens, 4), first_tokens(request.preset.key_tokens, 4));
    Exercise& e = d.exercise();
    e.extra["config"] = {{"name", c.name}, {"layers", c.layers}, {"heads", c.heads}, {"kv_heads", c.kv_heads}, {"head_dim", c.head_dim}};
    e.extra["context"] = context;
    e.facts.push_back(c.name + ": " + std::to_string(c.layers) + " layers, " + count_of(c.kv_heads, "K/V head") + " of width " +
                      std::to_string(c.head_dim) + "; K and V cached in bfloat16 (2 bytes a number); 1 KiB = 1024 bytes, 1 MiB = 1024 KiB");
    e.facts.push_back("the model has written tokens 0–2 and now writes token 3: K and V of tokens 0–2 are in the cache");
    d.row_part(PartKind::WeightsRow, 3, 2, "The newest token's weights, " + query_label(e, 3) + ", over the cached keys and its own, " +
               to_decimals(2) + ": only its query is new.");
    const KvCacheRow cache = cache_row(c, context);
    const double kib = static_cast<double>(cache.bytes_per_token) / 1024, mib = static_cast<double>(cache.context_bytes) / (1 << 20);
    d.number_part("The cache per token of " + c.name + ", all layers, in KiB, " + to_decimals(1) + ".", kib, 1, {}, cache_working(c));
    d.number_part("The whole cache at " + std::to_string(context) + " tokens, in MiB, " + to_decimals(1) + ".", mib, 1, {},
                  {hand_number(kib) + " KiB × " + std::to_string(context) + " tokens = " + hand_number(kib * static_cast<double>(context)) +
                   " KiB = " + hand_number(mib) + " MiB"});
    return true;
  });
}

}  // namespace attnlab
