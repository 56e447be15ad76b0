// The attention-sinks lesson (engine/lessons/attention_sinks.*) against computations of its own:
// the idle rows by a plain scan, each head's first-token share from the model's dense weights, the
// whole cache's tokens by running the whole text again at every step, a bound that forgets nothing
// writing those same tokens, and the agreement counts recounted.
#include "engine/cpu/cpu_backend.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/lessons/attention_sinks.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/model/model_report.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace attnlab {
namespace {

// Greedy tokens by a whole forward over the text at every step: no cache at all.
std::vector<int> whole_forward_tokens(const model::LanguageModel& m, std::vector<int> ids, int count) {
  std::vector<int> out;
  model::ForwardOptions fo;
  fo.keep_weights = false;
  fo.keep_logits = true;
  fo.top_k = 0;
  for (int i = 0; i < count; ++i) {
    const std::vector<float> logits = m.forward(ids, fo).logits;
    out.push_back(static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    ids.push_back(out.back());
  }
  return out;
}

int agreeing(const std::vector<int>& a, const std::vector<int>& b) {
  int n = 0;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += a[i] == b[i];
  return n;
}

TEST(AttentionSinks, IdleRowsAreThoseWhoseTokenIsNew) {
  EXPECT_EQ(idle_rows({0, 5, 6, 5, 7, 6, 8}), (std::vector<int>{1, 2, 4, 6}));
  EXPECT_TRUE(idle_rows({3}).empty());
}

TEST(AttentionSinks, LessonNumbersAgreeWithTheirOwnComputation) {
  const Scenario s = load_preset("attention-sinks");
  const Result r = compute_cpu(s.problem());
  const auto backend = make_cpu_backend();
  const AttentionSinksNumbers n = compute_attention_sinks(s, r, *backend, LessonDetail{});
  const auto m = model::open_model(n.model);
  const model::ModelConfig& c = m->config();
  ASSERT_EQ(n.heads.size(), static_cast<std::size_t>(c.n_layer * c.n_head));
  // Each head's share from the dense weights of one forward, averaged here.
  const model::ForwardTrace t = m->forward(n.ids, model::ForwardOptions{});
  const std::vector<int> idle = idle_rows(n.ids);
  for (const FirstTokenShare& h : n.heads) {
    const Matrix w = t.heads[static_cast<std::size_t>(h.layer)][static_cast<std::size_t>(h.head)].weights.dense();
    double all = 0, quiet = 0;
    for (Eigen::Index i = 1; i < w.rows(); ++i) all += w(i, 0);
    for (const int i : idle) quiet += w(i, 0);
    EXPECT_NEAR(h.all_rows, all / static_cast<double>(w.rows() - 1), 1e-9);
    EXPECT_NEAR(h.idle_rows, quiet / static_cast<double>(idle.size()), 1e-9);
    EXPECT_LE(h.idle_rows, n.heads[static_cast<std::size_t>(n.sink)].idle_rows);
  }
  // The sink's map is that head's, and its rows sum to 1.
  const FirstTokenShare& sink = n.heads[static_cast<std::size_t>(n.sink)];
  const Matrix w = t.heads[static_cast<std::size_t>(sink.layer)][static_cast<std::size_t>(sink.head)].weights.dense();
  EXPECT_LE((n.sink_weights - w).cwiseAbs().maxCoeff(), 1e-6f);
  for (Eigen::Index i = 0; i < w.rows(); ++i) EXPECT_NEAR(n.sink_weights.row(i).sum(), 1.0f, 1e-5f);
  // The whole cache's tokens are those of the whole text run again at each step.
  const int count = static_cast<int>(n.ids.size() - n.prompt.size());
  EXPECT_EQ(n.full.tokens, whole_forward_tokens(*m, n.prompt, count));
  EXPECT_EQ(n.with_sinks.agree, agreeing(n.with_sinks.tokens, n.full.tokens));
  EXPECT_EQ(n.without_sinks.agree, agreeing(n.without_sinks.tokens, n.full.tokens));
  EXPECT_EQ(n.kept.kept(), n.evicted.kept());
  EXPECT_EQ(n.evicted.sinks, 0);
}

// What the lesson's text says of its own example: the cache that keeps the sink writes every token as
// the whole cache does, the one that evicts it loses the thread (docs/MODELS.md, "A cache that
// forgets", measures it over many texts).
TEST(AttentionSinks, TheLessonsTextHoldsOfItsExample) {
  const Scenario s = load_preset("attention-sinks");
  const Result r = compute_cpu(s.problem());
  const auto backend = make_cpu_backend();
  const AttentionSinksNumbers n = compute_attention_sinks(s, r, *backend, LessonDetail{});
  const int of = static_cast<int>(n.full.tokens.size());
  EXPECT_EQ(n.with_sinks.agree, of);
  EXPECT_LE(n.without_sinks.agree, of / 2);
  // The whole cache writes the grammar's continuation: the preset's text after its prompt.
  EXPECT_EQ(n.full.tokens, std::vector<int>(n.ids.begin() + static_cast<std::ptrdiff_t>(n.prompt.size()), n.ids.end()));
  const FirstTokenShare& sink = n.heads[static_cast<std::size_t>(n.sink)];
  EXPECT_GT(sink.idle_rows, 0.5);
  EXPECT_GT(sink.idle_rows, sink.all_rows);
}

TEST(AttentionSinks, ABoundThatForgetsNothingWritesWhatTheWholeCacheWrites) {
  Scenario s = load_preset("attention-sinks");
  nlohmann::json lesson = nlohmann::json::parse(s.lesson.raw_json);
  const auto m = model::open_model(lesson.at("model").get<std::string>());
  // S + W as large as the model allows: the text never outgrows it.
  lesson["cache_window"] = m->config().n_ctx - 2;
  lesson["cache_sinks"] = 1;
  s.lesson.raw_json = lesson.dump();
  const Result r = compute_cpu(s.problem());
  const auto backend = make_cpu_backend();
  const AttentionSinksNumbers n = compute_attention_sinks(s, r, *backend, LessonDetail{});
  EXPECT_EQ(n.with_sinks.tokens, n.full.tokens);
  EXPECT_EQ(n.without_sinks.tokens, n.full.tokens);
}

}  // namespace
}  // namespace attnlab
