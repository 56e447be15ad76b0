// Generation (docs/MODELS.md, "Generation"): the sampler's temperature, top-k, top-p and seed, and a
// sequence over the KV cache, whose every step must give what a whole forward over the text gives.
#include "engine/model/decoder_model.hpp"
#include "engine/model/generate.hpp"

#include "support/random_decoder.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

namespace attnlab::model {
namespace {

using attnlab::test::error_of;

// Logits of a made-up vocabulary: a few large ones, a long flat tail, some equal values.
std::vector<float> some_logits(std::uint32_t seed, int V = 400) {
  std::mt19937 rng(seed);
  std::vector<float> l(static_cast<std::size_t>(V));
  for (auto& x : l) x = static_cast<float>(rng() % 1000) / 250.0f - 2.0f;
  l[7] = l[8] = 5.5f;  // a tie at the top
  l[3] = 4.0f;
  return l;
}

TEST(Sampling, BadSettingsAreOneSentenceNamingTheFlag) {
  const auto err = [](SamplingOptions s) { return error_of([&] { check_sampling(s); }); };
  EXPECT_EQ(err({}), "");
  EXPECT_NE(err({-0.5, 0, 1, 0}).find("--temperature -0.5: give T ≥ 0"), std::string::npos);
  EXPECT_NE(err({NAN, 0, 1, 0}).find("--temperature"), std::string::npos);
  EXPECT_NE(err({1, -2, 1, 0}).find("--top-k -2: give K ≥ 0"), std::string::npos);
  EXPECT_NE(err({1, 0, 0, 0}).find("--top-p 0: give P in (0, 1]"), std::string::npos);
  EXPECT_NE(err({1, 0, 1.5, 0}).find("--top-p 1.5"), std::string::npos);
  EXPECT_EQ(err({0, 0, 1, 0}), "");  // T = 0 is greedy, not an error
}

TEST(Sampling, GreedyTakesTheMostProbableLowestIdFirst) {
  const auto l = some_logits(1);
  Sampler s(3);
  for (int i = 0; i < 5; ++i) {
    const DrawnToken t = s.next(l, {0, 0, 1, 0});
    EXPECT_EQ(t.id, 7);  // 7 and 8 tie: the lower id
    EXPECT_EQ(t.prob, 1.0);
    EXPECT_GT(t.model_prob, 0.0);
    ASSERT_EQ(t.candidates.size(), 10u);
    EXPECT_EQ(t.candidates[0].id, 7);
    EXPECT_EQ(t.candidates[1].id, 8);
    EXPECT_EQ(t.candidates[1].prob, 0.0);  // greedy's distribution is all on one token
  }
}

TEST(Sampling, TemperatureRaisesTheModelsOddsToThePowerOneOverT) {
  const auto l = some_logits(2);
  for (double T : {0.25, 0.5, 1.0, 2.0, 10.0}) {
    const TokenDistribution d = next_distribution(l, {T, 0, 1, 0});
    EXPECT_NEAR(std::accumulate(d.drawn.begin(), d.drawn.end(), 0.0), 1.0, 1e-12);
    EXPECT_NEAR(std::accumulate(d.model.begin(), d.model.end(), 0.0), 1.0, 1e-12);
    // p_T(i) / p_T(j) = (p(i) / p(j))^(1/T), in double from float logits.
    for (int i : {0, 3, 7, 100}) {
      const double lhs = std::log(d.drawn[static_cast<std::size_t>(i)] / d.drawn[50]);
      const double rhs = std::log(d.model[static_cast<std::size_t>(i)] / d.model[50]) / T;
      EXPECT_NEAR(lhs, rhs, 1e-9 * (1 + std::abs(rhs))) << "T " << T << " token " << i;
    }
  }
}

// The drawn ids of `draws` draws, each with its own seed, and one seed's draws in a row.
std::vector<int> draws(const std::vector<float>& l, const SamplingOptions& s, int count) {
  std::vector<int> out;
  Sampler sampler(s.seed);
  for (int i = 0; i < count; ++i) out.push_back(sampler.next(l, s, 0).id);
  return out;
}

TEST(Sampling, TopKNeverDrawsOutsideTheKMostProbable) {
  const auto l = some_logits(3);
  for (int k : {1, 2, 5, 40}) {
    const std::vector<int> top = top_ids(l, k);
    const std::set<int> allowed(top.begin(), top.end());
    const TokenDistribution d = next_distribution(l, {1.5, k, 1, 0});
    EXPECT_EQ(std::set<int>(d.ranked.begin(), d.ranked.end()), allowed);
    for (int id : draws(l, {1.5, k, 1, static_cast<std::uint64_t>(k)}, 2000)) ASSERT_TRUE(allowed.count(id)) << "k " << k << " drew " << id;
  }
}

TEST(Sampling, TopPKeepsTheFewestTokensThatReachP) {
  const auto l = some_logits(4);
  for (double p : {0.05, 0.3, 0.9, 0.999}) {
    const TokenDistribution d = next_distribution(l, {2.0, 0, p, 0});
    const TokenDistribution all = next_distribution(l, {2.0, 0, 1, 0});
    ASSERT_FALSE(d.ranked.empty());
    double kept = 0;
    for (int id : d.ranked) kept += all.drawn[static_cast<std::size_t>(id)];
    // Reaches p, and would not without its last (least probable) token.
    EXPECT_GE(kept, p - 1e-12);
    EXPECT_LT(kept - all.drawn[static_cast<std::size_t>(d.ranked.back())], p);
    // The kept tokens are the most probable ones.
    EXPECT_EQ(d.ranked, top_ids(l, static_cast<int>(d.ranked.size())));
    const std::set<int> allowed(d.ranked.begin(), d.ranked.end());
    for (int id : draws(l, {2.0, 0, p, 11}, 2000)) ASSERT_TRUE(allowed.count(id)) << "p " << p << " drew " << id;
  }
  // Top-p after top-k: its threshold is a share of what top-k kept.
  const TokenDistribution both = next_distribution(l, {1, 3, 0.999, 0});
  EXPECT_EQ(both.ranked.size(), 3u);
}

TEST(Sampling, DrawsFollowTheDistribution) {
  const auto l = some_logits(5, 12);
  const SamplingOptions s{0.7, 0, 1, 21};
  const TokenDistribution d = next_distribution(l, s);
  const int N = 20000;
  std::vector<int> counts(l.size());
  for (int id : draws(l, s, N)) ++counts[static_cast<std::size_t>(id)];
  for (std::size_t i = 0; i < l.size(); ++i) {
    const double p = d.drawn[i], f = static_cast<double>(counts[i]) / N;
    EXPECT_LE(std::abs(f - p), 5 * std::sqrt(p * (1 - p) / N) + 1e-12) << "token " << i;  // five binomial sigmas
  }
}

TEST(Sampling, TheSameSeedDrawsTheSameTokens) {
  const auto l = some_logits(6);
  const SamplingOptions s{3.0, 0, 1, 42};
  EXPECT_EQ(draws(l, s, 200), draws(l, s, 200));
  SamplingOptions other = s;
  other.seed = 43;
  EXPECT_NE(draws(l, s, 200), draws(l, other, 200));
}

TEST(Sampling, BrokenLogitsStillGiveAToken) {
  std::vector<float> l(20, NAN);
  l[4] = 1.0f;
  l[9] = 2.0f;
  const DrawnToken t = Sampler(1).next(l, {1, 0, 1, 0});
  EXPECT_TRUE(t.id == 4 || t.id == 9);
  EXPECT_EQ(t.candidates[0].id, 9);
  EXPECT_EQ(t.candidates[1].id, 4);
  const std::vector<float> none(5, NAN);
  EXPECT_EQ(Sampler(1).next(none, {1, 0, 1, 0}).id, 0);
}

// Float32 paths of one forward over the same sums in other orders (a one-row product against a
// blocked one): each logit moves by a few roundings per layer of the widest product, the bound the
// model tests use (docs/MODELS.md, "Forward pass").
double logit_bound(const ModelConfig& c, double largest_logit) {
  const double w = std::max({c.d_model, c.d_ff, c.q_width()});
  return 8 * std::ldexp(1.0, -24) * std::sqrt(w) * (c.n_layer + 1) * (1 + largest_logit);
}

double largest(const std::vector<float>& l) {
  double m = 0;
  for (float x : l) m = std::max(m, std::abs(static_cast<double>(x)));
  return m;
}

// Greedy generation over the cache against a whole forward over the text at every step: the same
// tokens, and logits within the bound.
void expect_cache_matches_recompute(const LanguageModel& m, const std::vector<int>& prompt, int count) {
  CachedSequence seq(m);
  seq.assign(prompt);
  Sampler sampler(0);
  GenerateOptions go;
  go.count = count;
  go.sampling.temperature = 0;
  std::vector<int> ids = prompt;
  ForwardOptions whole;
  whole.keep_logits = true;
  whole.keep_weights = false;
  const auto written = generate(seq, sampler, go, [&](const DrawnToken& t) {
    // The reference: the text so far, run whole, no cache.
    const ForwardTrace ref = m.forward(ids, whole);
    const std::vector<int> order = top_ids(ref.logits, 2);
    const double bound = logit_bound(m.config(), largest(ref.logits));
    EXPECT_TRUE(t.id == order[0] || ref.logits[static_cast<std::size_t>(order[0])] - ref.logits[static_cast<std::size_t>(order[1])] <= 2 * bound)
        << "step " << ids.size() - prompt.size() << ": cached drew " << t.id << ", the whole forward's best is " << order[0];
    ids.push_back(t.id);
    const ForwardTrace now = m.forward(ids, whole);
    const double b = logit_bound(m.config(), largest(now.logits));
    for (std::size_t i = 0; i < now.logits.size(); ++i) {
      EXPECT_LE(std::abs(seq.logits()[i] - now.logits[i]), b) << "logit " << i << " after " << ids.size() << " tokens";
    }
    return true;
  });
  EXPECT_EQ(static_cast<int>(written.size()), count);
  EXPECT_EQ(seq.ids(), ids);
  EXPECT_EQ(seq.cache().length, static_cast<std::int64_t>(ids.size()));
}

TEST(Generate, TheCacheGivesWhatRecomputingGives) {
  const RandomModel llama("llama", R"(, "rope_scaling": {"rope_type": "linear", "factor": 2})", 11);
  expect_cache_matches_recompute(*DecoderModel::open(llama.dir), {3, 14, 15, 9, 26}, 12);
  const RandomModel mistral("mistral", R"(, "sliding_window": 4)", 12);
  expect_cache_matches_recompute(*DecoderModel::open(mistral.dir), {1, 2, 3}, 10);
  const RandomModel qwen3("qwen3", R"(, "head_dim": 12)", 13);
  expect_cache_matches_recompute(*DecoderModel::open(qwen3.dir), {7}, 8);
  if (!builtin_models().empty()) expect_cache_matches_recompute(*open_model("induction"), {1, 2, 3, 4, 5, 1, 2}, 10);
}

TEST(Generate, EditingTheEndRunsOnlyFromTheFirstChange) {
  const RandomModel llama("llama", "", 14);
  const auto m = DecoderModel::open(llama.dir);
  CachedSequence seq(*m);
  EXPECT_EQ(seq.assign({1, 2, 3, 4, 5, 6}), 6);
  EXPECT_EQ(seq.assign({1, 2, 3, 4, 5, 6}), 0);         // nothing changed
  EXPECT_EQ(seq.assign({1, 2, 3, 4, 5, 6, 7, 8}), 2);   // typed two more
  EXPECT_EQ(seq.assign({1, 2, 3, 9, 5, 6, 7, 8}), 5);   // changed the fourth
  EXPECT_EQ(seq.assign({1, 2, 3, 9}), 1);               // deleted the end: the last runs for its logits
  EXPECT_EQ(seq.cache().length, 4);
  // The same as a sequence built at once.
  CachedSequence fresh(*m);
  fresh.assign({1, 2, 3, 9});
  const ForwardTrace a = seq.trace(), b = fresh.trace();
  for (std::size_t l = 0; l < a.heads.size(); ++l) {
    for (std::size_t h = 0; h < a.heads[l].size(); ++h) {
      const Matrix w = a.heads[l][h].weights.dense();
      ASSERT_EQ(w.rows(), 4);
      EXPECT_LE(max_abs_difference(a.heads[l][h].weights, b.heads[l][h].weights), 1e-5);
      for (Eigen::Index i = 0; i < w.rows(); ++i) {
        EXPECT_NEAR(w.row(i).sum(), 1.0f, 1e-5f);
        EXPECT_EQ(w.row(i).tail(w.cols() - i - 1).cwiseAbs().sum(), 0.0f);  // causal: nothing above the diagonal
      }
    }
  }
  // The last position ran alone in one and among four in the other: the same sums in other orders.
  ASSERT_EQ(a.logits.size(), b.logits.size());
  for (std::size_t i = 0; i < a.logits.size(); ++i) EXPECT_LE(std::abs(a.logits[i] - b.logits[i]), logit_bound(m->config(), largest(b.logits)));
  ASSERT_FALSE(a.next_tokens.empty());
  EXPECT_EQ(a.next_tokens[0].id, b.next_tokens[0].id);
}

TEST(Generate, StoppingLeavesAUsableSequence) {
  const RandomModel llama("llama", "", 15);
  const auto m = DecoderModel::open(llama.dir);
  CachedSequence seq(*m);
  seq.assign({1, 2, 3});
  const std::vector<float> logits = seq.logits();
  const LayerProgress stop = [](int done, int) { return done < 1; };
  EXPECT_FALSE(seq.push(4, stop));  // a step stopped mid-way: nothing changed
  EXPECT_EQ(seq.ids(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(seq.logits(), logits);
  EXPECT_EQ(seq.assign({1, 2, 5, 6}, "the text", stop), -1);  // an edit stopped: the unchanged prefix, no logits
  EXPECT_EQ(seq.ids(), (std::vector<int>{1, 2}));
  EXPECT_TRUE(seq.logits().empty());
  EXPECT_EQ(seq.assign({1, 2}), 1);  // the last position runs again for its logits
  EXPECT_FALSE(seq.logits().empty());
  // Generation stopped by its callback keeps the tokens written so far.
  Sampler sampler(1);
  GenerateOptions go;
  go.count = 5;
  int seen = 0;
  const auto written = generate(seq, sampler, go, [&](const DrawnToken&) { return ++seen < 2; });
  EXPECT_EQ(written.size(), 2u);
  EXPECT_EQ(seq.size(), 4);
}

TEST(Generate, TooManyTokensIsOneSentence) {
  const RandomModel llama("llama", "", 16);
  const auto m = DecoderModel::open(llama.dir);
  EXPECT_NE(error_of([&] { check_generate(*m, 30, 11); })
                .find("--generate 11: the text's 30 tokens and 11 more make 41, more than this model's 40 positions (max_position_embeddings); "
                      "write at most 10"),
            std::string::npos);
  EXPECT_EQ(error_of([&] { check_generate(*m, 30, 10); }), "");
  EXPECT_NE(error_of([&] { check_generate(*m, 3, 0); }).find("--generate 0: give how many tokens to write, 1 or more"), std::string::npos);
}

TEST(Generate, TheCacheHoldsKvHeadsNotQueryHeads) {
  const RandomModel gqa("llama", "", 17);  // 4 query heads share 2 K/V heads
  const auto m = DecoderModel::open(gqa.dir);
  const ModelConfig& c = m->config();
  EXPECT_EQ(kv_cache_bytes_per_token(c), 2 * c.n_layer * c.n_kv_head * c.d_head * 4);
  ModelConfig mha = c;
  mha.n_kv_head = mha.n_head;
  EXPECT_EQ(kv_cache_bytes_per_token(mha), kv_cache_bytes_per_token(c) * c.n_head / c.n_kv_head);
  CachedSequence seq(*m);
  seq.assign({1, 2, 3, 4, 5});
  std::int64_t bytes = 0;
  for (std::size_t l = 0; l < seq.cache().k.size(); ++l) {
    bytes += static_cast<std::int64_t>((seq.cache().k[l].size() + seq.cache().v[l].size()) * sizeof(float));
  }
  EXPECT_EQ(bytes, 5 * kv_cache_bytes_per_token(c));
}

TEST(Generate, KeepsTheChosenHeadsQkvAcrossSteps) {
  const RandomModel llama("llama", "", 18);
  const auto m = DecoderModel::open(llama.dir);
  SequenceOptions so;
  so.qkv_layer = 1;
  so.qkv_head = 2;
  CachedSequence seq(*m, so);
  seq.assign({4, 5, 6});
  Sampler sampler(2);
  GenerateOptions go;
  go.count = 3;
  generate(seq, sampler, go);
  ForwardOptions one;
  one.qkv_layer = 1;
  one.qkv_head = 2;
  const ForwardTrace whole = m->forward(seq.ids(), one), mine = seq.trace();
  const HeadTrace &a = mine.heads[1][2], &b = whole.heads[1][2];
  ASSERT_EQ(a.q.rows(), 6);
  EXPECT_LE((a.q - b.q).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_LE((a.k - b.k).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_LE((a.v - b.v).cwiseAbs().maxCoeff(), 1e-5f);
  EXPECT_EQ(mine.heads[0][0].q.size(), 0);
}

}  // namespace
}  // namespace attnlab::model
