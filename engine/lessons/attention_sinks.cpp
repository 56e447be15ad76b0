// The attention-sinks lesson's numbers; see attention_sinks.hpp.
#include "engine/lessons/attention_sinks.hpp"

#include "engine/lessons/exercise_draw.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/model/generate.hpp"
#include "engine/model/model_report.hpp"

#include <algorithm>

namespace attnlab {

namespace {

// Greedy: the most probable token at every step, no draws.
model::SamplingOptions most_probable_tokens() { return model::SamplingOptions{0.0, 0, 1.0, 0}; }

std::vector<int> ids_of(const std::vector<model::DrawnToken>& drawn) {
  std::vector<int> ids;
  for (const model::DrawnToken& t : drawn) ids.push_back(t.id);
  return ids;
}

// `count` tokens after `prompt` over the whole cache.
std::vector<int> whole_cache_tokens(const model::LanguageModel& m, const std::vector<int>& prompt, int count) {
  model::check_generate(m, static_cast<std::int64_t>(prompt.size()), count);
  model::SequenceOptions so;
  so.keep_weights = false;
  model::CachedSequence seq(m, so);
  seq.assign(prompt);
  model::Sampler sampler(0);
  model::GenerateOptions opt;
  opt.count = count;
  opt.sampling = most_probable_tokens();
  opt.candidates = 0;
  return ids_of(model::generate(seq, sampler, opt));
}

// `count` tokens after `prompt` over a cache bounded by `bound`, and how many equal `full`'s.
Continuation bounded_tokens(const model::LanguageModel& m, const std::vector<int>& prompt, int count, const model::CacheBound& bound,
                            const std::vector<int>& full) {
  model::Sampler sampler(0);
  Continuation c;
  c.tokens = ids_of(model::generate_bounded(m, prompt, sampler, count, most_probable_tokens(), 0, bound));
  for (std::size_t i = 0; i < c.tokens.size() && i < full.size(); ++i) c.agree += c.tokens[i] == full[i];
  return c;
}

nlohmann::ordered_json ids_json(const std::vector<int>& ids) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const int id : ids) out.push_back(id);
  return out;
}

nlohmann::ordered_json share_json(const FirstTokenShare& h) {
  return {{"layer", h.layer}, {"head", h.head}, {"all_rows", h.all_rows}, {"idle_rows", h.idle_rows}};
}

nlohmann::ordered_json continuation_json(const Continuation& c) {
  return {{"tokens", ids_json(c.tokens)}, {"agree", c.agree}, {"of", c.tokens.size()}};
}

}  // namespace

AttentionSinksParams attention_sinks_params(const LessonFields& f) {
  AttentionSinksParams p;
  p.text = lesson_model_text(f, p.text);
  p.window = f.positive_integer("cache_window", 1 << 20, p.window);
  p.sinks = f.positive_integer("cache_sinks", 1 << 20, p.sinks);
  return p;
}

std::vector<int> idle_rows(const std::vector<int>& ids) {
  std::vector<int> rows;
  for (std::size_t i = 1; i < ids.size(); ++i) {
    if (std::find(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(i), ids[i]) == ids.begin() + static_cast<std::ptrdiff_t>(i)) {
      rows.push_back(static_cast<int>(i));
    }
  }
  return rows;
}

std::vector<FirstTokenShare> first_token_shares(const model::LanguageModel& m, const std::vector<int>& ids) {
  model::ForwardOptions fo;
  fo.top_k = 0;
  const model::ForwardTrace t = m.forward(ids, fo);
  const std::vector<int> idle = idle_rows(ids);
  std::vector<FirstTokenShare> out;
  for (std::size_t l = 0; l < t.heads.size(); ++l) {
    for (std::size_t h = 0; h < t.heads[l].size(); ++h) {
      const model::CausalWeights& w = t.heads[l][h].weights;
      FirstTokenShare s{static_cast<int>(l), static_cast<int>(h), 0, 0};
      for (std::int64_t i = 1; i < w.rows(); ++i) s.all_rows += w(i, 0);
      for (const int i : idle) s.idle_rows += w(i, 0);
      if (w.rows() > 1) s.all_rows /= static_cast<double>(w.rows() - 1);
      if (!idle.empty()) s.idle_rows /= static_cast<double>(idle.size());
      out.push_back(s);
    }
  }
  return out;
}

AttentionSinksNumbers compute_attention_sinks(const Scenario& s, const Result&, Backend&, const LessonDetail&) {
  const AttentionSinksParams p = attention_sinks_params(LessonFields(s.lesson));
  AttentionSinksNumbers n;
  n.model = p.text.model;
  const auto m = model::open_model(p.text.model);
  n.ids = lesson_text_ids(*m, p.text);
  n.idle = idle_rows(n.ids);
  n.heads = first_token_shares(*m, n.ids);
  const auto sink = std::max_element(n.heads.begin(), n.heads.end(),
                                     [](const FirstTokenShare& a, const FirstTokenShare& b) { return a.idle_rows < b.idle_rows; });
  n.sink = static_cast<int>(sink - n.heads.begin());
  model::ForwardOptions fo;
  fo.top_k = 0;
  n.sink_weights = m->forward(n.ids, fo).heads[static_cast<std::size_t>(sink->layer)][static_cast<std::size_t>(sink->head)].weights.dense();
  const std::int64_t prompt = lesson_prompt(p.text, n.ids);
  n.prompt.assign(n.ids.begin(), n.ids.begin() + prompt);
  const int count = static_cast<int>(n.ids.size()) - static_cast<int>(prompt);
  // The same number of positions either way: the evicted run keeps the sinks' places for recent tokens.
  n.kept = {p.window, p.sinks};
  n.evicted = {p.window + p.sinks, 0};
  n.full.tokens = whole_cache_tokens(*m, n.prompt, count);
  n.full.agree = count;
  n.with_sinks = bounded_tokens(*m, n.prompt, count, n.kept, n.full.tokens);
  n.without_sinks = bounded_tokens(*m, n.prompt, count, n.evicted, n.full.tokens);
  return n;
}

nlohmann::ordered_json attention_sinks_to_json(const AttentionSinksNumbers& n, const Scenario&, const Result&, const LessonDetail&) {
  using json = nlohmann::ordered_json;
  json heads = json::array();
  for (const FirstTokenShare& h : n.heads) heads.push_back(share_json(h));
  json sink = share_json(n.heads[static_cast<std::size_t>(n.sink)]);
  sink["weights"] = matrix_to_json(n.sink_weights);
  const auto bound_json = [](const model::CacheBound& b) { return json{{"sinks", b.sinks}, {"window", b.window}}; };
  return {{"model", n.model},
          {"ids", ids_json(n.ids)},
          {"idle_rows", ids_json(n.idle)},
          {"heads", heads},
          {"sink", sink},
          {"prompt", ids_json(n.prompt)},
          {"cache", {{"kept", bound_json(n.kept)}, {"evicted", bound_json(n.evicted)}}},
          {"full", continuation_json(n.full)},
          {"with_sinks", continuation_json(n.with_sinks)},
          {"without_sinks", continuation_json(n.without_sinks)}};
}

// ---- The exercise ----------------------------------------------------------------------------

Exercise attention_sinks_exercise(const ExerciseRequest& request) {
  const Mask causal = parse_mask_spec("causal");
  return draw_exercise(request, [&](ExerciseRandom& rnd, ExerciseDraft& d) {
    // Every query has 1 in its first coordinate, which only key 0 has (2 to 4): a sink.
    const double sink = static_cast<double>(rnd.integer(2, 4));
    MatrixD Q = rnd.integers(4, 2, -1, 1), K = rnd.integers(4, 2, -1, 1);
    Q.col(0).setConstant(1);
    K.col(0).setZero();
    K.row(0) << sink, 0;
    d.set_given(Q, K, rnd.integers(4, 2, 0, 2), exercise_options(true, 1, causal), {"<s>", "t1", "t2", "t3"}, {"<s>", "t1", "t2", "t3"});
    Exercise& e = d.exercise();
    e.facts.push_back("key 0, '<s>', is the text's first token: every query sees it, and each points at it (an attention sink)");
    e.facts.push_back("a cache that evicts the sink drops key 0; the softmax then runs over the keys left");
    const Eigen::Index row = 3, key = rnd.integer(1, 3);
    d.row_part(PartKind::WeightsRow, row, 2, "The weights of " + query_label(e, row) + " with every key cached, " + to_decimals(2) + ".");
    const double w0 = d.stages().weights(row, 0), wj = d.stages().weights(row, key), left = 1 - w0;
    const std::string key_name = "key " + std::to_string(key);
    d.number_part("The sink is evicted: the weight " + query_label(e, row) + " puts on " + key_name + ", " + to_decimals(2) + ".", wj / left, 2,
                  {mistake_number(Mistake::MaskAfterSoftmax, wj)},
                  {"the weights must still sum to 1 over the keys left: " + hand_number(wj) + " / (1 − " + hand_number(w0) + ") = " +
                   hand_number(wj / left)});
    d.number_part("By how many times does every kept weight grow, " + to_decimals(2) + "?", 1 / left, 2, {mistake_number(Mistake::MaskAfterSoftmax, 1)},
                  {"1 / (1 − " + hand_number(w0) + ") = " + hand_number(1 / left)});
    // A sink holds most of the row, and the renormalized weight differs visibly from the kept one.
    return w0 > 0.5 && wj / left - wj > 0.05;
  });
}

}  // namespace attnlab
