// Training (docs/MODELS.md, "Training"): the tasks' generators and their JSON, a short run lowering
// the loss, determinism, the saved folder reopened giving the trainer's predictions, the training
// forward agreeing with the inference forward, each for both families the trainer trains (GPT-2
// and Llama), and every bad input refused with a sentence. The gradients themselves are checked
// against PyTorch's autograd, block by block and whole models (tests/model/train_gradient_test.py).
#include "engine/model/decoder_model.hpp"
#include "engine/model/families.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/trainer.hpp"
#include "engine/model/training_tasks.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <random>
#include <string>

#include <unistd.h>

namespace attnlab::model {
namespace {

namespace fs = std::filesystem;

using attnlab::test::error_of;

// [SECTION] tasks

TEST(TrainingTasks, InductionCopiesEarlierSpansAtRandomPlaces) {
  TaskGenerator g(default_task("induction"), 3);
  const int rows = 200;
  const TaskBatch b = g.next(rows);
  const int L = g.task().length, T = b.length - 1;
  ASSERT_EQ(b.length, 2 * L);
  ASSERT_EQ(b.ids.size(), static_cast<std::size_t>(rows * 2 * L));
  ASSERT_EQ(b.in_loss.size(), static_cast<std::size_t>(rows * T));
  std::vector<int> seen(static_cast<std::size_t>(g.task().symbols), 0), flagged_at(static_cast<std::size_t>(T), 0);
  int flagged = 0;
  for (int r = 0; r < rows; ++r) {
    const int* s = b.ids.data() + r * b.length;
    for (int i = 0; i < b.length; ++i) {
      ASSERT_GE(s[i], 0);
      ASSERT_LT(s[i], g.task().symbols);
      ++seen[static_cast<std::size_t>(s[i])];
    }
    for (int t = 0; t < T; ++t) {
      const auto at = static_cast<std::size_t>(r * T + t);
      EXPECT_EQ(b.in_loss[at], b.in_accuracy[at]);  // the loss counts only what can be known
      if (!b.in_accuracy[at]) continue;
      ++flagged, ++flagged_at[static_cast<std::size_t>(t)];
      // A copied position: the pair (token t, token t + 1) occurred before, so an induction head
      // looking at the token after an earlier occurrence of token t finds token t + 1.
      bool earlier = false;
      for (int j = 0; j < t && !earlier; ++j) earlier = s[j] == s[t] && s[j + 1] == s[t + 1];
      EXPECT_TRUE(earlier) << "row " << r << ", position " << t;
    }
  }
  // 4800 uniform draws over 64 symbols: every symbol appears (missing one has probability < 1e-30).
  for (int c : seen) EXPECT_GT(c, 0);
  // Copies fill a good part of the sequence, at every position of the second half.
  EXPECT_GT(flagged, rows * T / 4);
  for (int t = L; t < T; ++t) EXPECT_GT(flagged_at[static_cast<std::size_t>(t)], 0) << t;
}

TEST(TrainingTasks, InductionIsJudgedOnASpanAndItsCopy) {
  TaskGenerator g(default_task("induction"), 4);
  const int rows = 300;
  const TaskBatch b = g.judged(rows);
  const int L = g.task().length, T = b.length - 1;
  std::vector<int> spans(static_cast<std::size_t>(L + 1), 0);
  for (int r = 0; r < rows; ++r) {
    const int* s = b.ids.data() + r * b.length;
    const unsigned char* acc = b.in_accuracy.data() + r * T;
    // The flags are the copy's positions after its first: span … 2·span − 2.
    const int first = static_cast<int>(std::find(acc, acc + T, 1) - acc), span = first;
    ASSERT_GE(span, kShortestJudgedSpan);
    ASSERT_LE(span, L);
    ++spans[static_cast<std::size_t>(span)];
    for (int t = 0; t < T; ++t) EXPECT_EQ(acc[t] != 0, t >= span && t <= 2 * span - 2) << t;
    for (int i = 0; i < span; ++i) EXPECT_EQ(s[i], s[i + span]);
    EXPECT_TRUE(std::equal(acc, acc + T, b.in_loss.data() + r * T));
  }
  for (int span = kShortestJudgedSpan; span <= L; ++span) EXPECT_GT(spans[static_cast<std::size_t>(span)], 0) << span;
  // The probe is the judged sequence of the longest span: L symbols, then the same L.
  const auto probe = probe_sequence(g.task());
  ASSERT_EQ(probe.size(), static_cast<std::size_t>(2 * L));
  EXPECT_TRUE(std::equal(probe.begin(), probe.begin() + L, probe.begin() + L));
}

TEST(TrainingTasks, SortFollowsWithTheSortedCopy) {
  TaskGenerator g(default_task("sort"), 4);
  const TaskBatch b = g.next(40);
  const int N = g.task().length, T = b.length - 1;
  for (int r = 0; r < b.batch; ++r) {
    std::vector<int> first(b.ids.begin() + r * b.length, b.ids.begin() + r * b.length + N);
    std::vector<int> second(b.ids.begin() + r * b.length + N, b.ids.begin() + (r + 1) * b.length);
    std::sort(first.begin(), first.end());
    EXPECT_EQ(first, second);
    for (int t = 0; t < T; ++t) {
      const bool scored = t >= N - 1 && t <= 2 * N - 2;
      EXPECT_EQ(b.in_loss[static_cast<std::size_t>(r * T + t)] != 0, scored) << t;
      EXPECT_EQ(b.in_accuracy[static_cast<std::size_t>(r * T + t)] != 0, scored) << t;
    }
  }
}

// The grammar task's rule, written out again: a repeat where the token appeared before (the token
// after its latest earlier appearance), else counting up; a jump (out of the loss) only where
// neither gives the next token.
TEST(TrainingTasks, GrammarCountsJumpsAndRepeats) {
  TaskGenerator g(default_task("grammar"), 8);
  const TaskBatch b = g.next(64);
  const int V = g.task().symbols, T = b.length - 1;
  int follows = 0, repeats = 0, counted = 0;
  for (int r = 0; r < b.batch; ++r) {
    const int* ids = b.ids.data() + r * b.length;
    for (int t = 0; t < T; ++t) {
      int earlier = t - 1;
      while (earlier >= 0 && ids[earlier] != ids[t]) --earlier;
      const int rule = earlier >= 0 ? ids[earlier + 1] : (ids[t] + 1) % V;
      const bool in_loss = b.in_loss[static_cast<std::size_t>(r * T + t)] != 0;
      EXPECT_EQ(in_loss, b.in_accuracy[static_cast<std::size_t>(r * T + t)] != 0);
      if (in_loss) {
        EXPECT_EQ(ids[t + 1], rule) << "row " << r << " at " << t;
        ++follows;
        (earlier >= 0 ? repeats : counted) += 1;
      }
    }
  }
  // One row in four jumps; of those that follow the rule, both kinds are common.
  const int rows = b.batch * T;
  EXPECT_GT(follows, rows / 2);
  EXPECT_LT(follows, rows * 9 / 10);
  EXPECT_GT(repeats, follows / 10);
  EXPECT_GT(counted, follows / 10);
}

TEST(TrainingTasks, SameSeedSameBatchesOtherSeedOthers) {
  TaskGenerator a(default_task("induction"), 9), b(default_task("induction"), 9), c(default_task("induction"), 10);
  const auto x = a.next(8), y = b.next(8), z = c.next(8);
  EXPECT_EQ(x.ids, y.ids);
  EXPECT_NE(x.ids, z.ids);
  EXPECT_EQ(probe_sequence(default_task("sort")), probe_sequence(default_task("sort")));
}

// A start token: token 0 opens every row and appears nowhere else; the task's own tokens follow it
// as they would alone, over 1 … V − 1; training's loss also counts the induction opening's rows
// (where nothing can be copied), judging does not.
TEST(TrainingTasks, AStartTokenOpensEveryRowAndNothingElse) {
  for (const char* name : {"induction", "sort", "grammar"}) {
    TaskSpec t = default_task(name);
    t.start_token = true;
    const int n = t.sequence_length();
    EXPECT_EQ(n, 2 * t.length + 1);
    TaskGenerator g(t, 6);
    for (const TaskBatch& b : {g.next(16), g.judged(16)}) {
      ASSERT_EQ(b.length, n);
      for (int r = 0; r < b.batch; ++r) {
        for (int i = 0; i < n; ++i) EXPECT_EQ(b.ids[static_cast<std::size_t>(r * n + i)] == 0, i == 0) << name << " row " << r << " at " << i;
      }
    }
    EXPECT_EQ(probe_sequence(t).front(), 0);
    const TaskSpec back = parse_task_json(task_json(t), "config.json");
    EXPECT_TRUE(back.start_token);
  }
  TaskSpec t = default_task("induction");
  t.start_token = true;
  TaskGenerator g(t, 7);
  const TaskBatch b = g.next(4), judged = g.judged(4);
  for (int r = 0; r < 4; ++r) {
    EXPECT_TRUE(b.in_loss[static_cast<std::size_t>(r * (b.length - 1))]) << "the start token's row predicts the opening";
    EXPECT_FALSE(b.in_accuracy[static_cast<std::size_t>(r * (b.length - 1))]);
    EXPECT_FALSE(judged.in_loss[static_cast<std::size_t>(r * (judged.length - 1))]);
  }
  TaskSpec grammar = default_task("grammar");
  grammar.start_token = true;
  const TaskBatch gb = TaskGenerator(grammar, 7).next(4);
  for (int r = 0; r < 4; ++r) EXPECT_FALSE(gb.in_loss[static_cast<std::size_t>(r * (gb.length - 1))]) << "the grammar's first symbol is random";
  EXPECT_EQ(task_json(default_task("sort")).find("start_token"), std::string::npos) << "a task without one writes what older models carry";
  EXPECT_NE(error_of([] { parse_task_json(R"({"name": "sort", "length": 4, "symbols": 5, "start_token": 1})", "c.json"); }).find("\"start_token\""),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_task_json(R"({"name": "sort", "length": 4, "symbols": 2, "start_token": true})", "c.json"); }).find("3 symbols"),
            std::string::npos);
}

TEST(TrainingTasks, TaskJsonRoundTripsAndRefusesNonsense) {
  for (const char* name : {"induction", "sort", "grammar"}) {
    TaskSpec t = default_task(name);
    t.length = 7;
    t.symbols = 13;
    const TaskSpec back = parse_task_json(task_json(t), "config.json");
    EXPECT_EQ(back.kind, t.kind);
    EXPECT_EQ(back.length, 7);
    EXPECT_EQ(back.symbols, 13);
  }
  EXPECT_NE(error_of([] { parse_task_json(R"({"name": "copy", "length": 4, "symbols": 5})", "c.json"); }).find("not a training task"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_task_json(R"({"name": "sort", "half_length": 4, "symbols": 5})", "c.json"); }).find("\"length\""),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_task_json(R"({"name": "sort", "length": 1, "symbols": 5})", "c.json"); }).find("outside 2 to"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_task_json(R"({"name": "sort", "length": 4, "symbols": 5, "x": 1})", "c.json"); }).find("unknown field"),
            std::string::npos);
  EXPECT_NE(error_of([] { parse_task_json("[1]", "c.json"); }).find("must be an object"), std::string::npos);
  EXPECT_NE(error_of([] { default_task("copy"); }).find("--task: 'copy' is not a training task"), std::string::npos);
}

// [SECTION] training

TrainConfig small_run(const char* task, int steps, Family family = Family::Gpt2) {
  TrainConfig c;
  c.task = default_task(task);
  c.family = family;
  c.steps = steps;
  c.batch = 16;
  c.seed = 5;
  return c;
}
TrainConfig small_induction(int steps, Family family = Family::Gpt2) { return small_run("induction", steps, family); }

// Every test of a run, for each family the trainer trains.
class EachFamily : public ::testing::TestWithParam<Family> {};
INSTANTIATE_TEST_SUITE_P(Trainer, EachFamily, ::testing::Values(Family::Gpt2, Family::Llama),
                         [](const auto& info) { return std::string(family_spec(info.param).model_type); });

TEST_P(EachFamily, AShortRunRemovesMostOfTheLoss) {
  // Sort, whose every scored token follows from the first half (the least loss is 0), learns
  // within a hundred steps; induction's heads take longer than a unit test should.
  Trainer t(small_run("sort", 150, GetParam()));
  const TaskSpec& task = t.config().task;
  const Evaluation before = t.evaluate(64);
  // At initialization the predictions are nearly uniform: the loss is ln V.
  EXPECT_NEAR(before.loss, std::log(task.symbols), 0.1);
  while (!t.finished()) t.step();
  const Evaluation after = t.evaluate(64);
  EXPECT_LT(after.loss, 0.5 * before.loss);
  EXPECT_GT(after.accuracy, before.accuracy);
}

TEST_P(EachFamily, SameSeedGivesTheSameWeights) {
  Trainer a(small_induction(4, GetParam())), b(small_induction(4, GetParam()));
  for (int i = 0; i < 4; ++i) {
    const StepStats x = a.step(), y = b.step();
    EXPECT_EQ(x.loss, y.loss);
  }
  auto pa = a.parameters(), pb = b.parameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (std::size_t i = 0; i < pa.size(); ++i) {
    EXPECT_TRUE(std::equal(pa[i].values.begin(), pa[i].values.end(), pb[i].values.begin(), pb[i].values.end())) << pa[i].name;
  }
}

TEST(Trainer, LearningRateFollowsWarmUpAndCosineToATenth) {
  TrainConfig c = small_induction(20);
  c.lr = 1e-3;
  c.warmup = 4;
  Trainer t(c);
  std::vector<double> lr;
  while (!t.finished()) lr.push_back(t.step().lr);
  EXPECT_DOUBLE_EQ(lr[0], 1e-3 / 4);
  EXPECT_DOUBLE_EQ(lr[3], 1e-3);
  for (std::size_t i = 4; i + 1 < lr.size(); ++i) EXPECT_LT(lr[i + 1], lr[i]);
  EXPECT_NEAR(lr.back(), 1e-4, 1e-12);  // 10% of the peak at the last step
}

TEST_P(EachFamily, SavedFolderReopensWithTheSamePredictions) {
  Trainer t(small_induction(40, GetParam()));
  while (!t.finished()) t.step();
  const fs::path dir = fs::temp_directory_path() / ("attnlab_trainer_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  t.save(dir, false);
  EXPECT_NE(error_of([&] { t.save(dir, false); }).find("pass --force"), std::string::npos);
  t.save(dir, true);  // replaces it
  const auto m = DecoderModel::open(dir);
  // The folder is a model of the family with the trainer's sizes.
  const ModelConfig want = model_config(t.config());
  EXPECT_EQ(m->config().family, GetParam());
  EXPECT_EQ(m->config().n_head, want.n_head);
  EXPECT_EQ(m->config().n_kv_head, want.n_kv_head);
  EXPECT_EQ(m->config().positions, want.positions);
  EXPECT_EQ(m->config().norm, want.norm);
  EXPECT_EQ(m->config().ffn, want.ffn);
  EXPECT_EQ(m->config().tied, want.tied);
  EXPECT_EQ(m->parameters(), parameter_count(want));
  const TaskSpec saved = parse_task_json(m->config().task_json, "config.json");
  EXPECT_EQ(saved.kind, t.config().task.kind);
  EXPECT_EQ(saved.length, t.config().task.length);
  EXPECT_EQ(saved.symbols, t.config().task.symbols);
  const std::vector<int> probe = probe_sequence(t.config().task);
  ForwardOptions o;
  o.top_k = t.config().task.symbols;
  const ForwardTrace mine = t.forward(probe, o), theirs = m->forward(probe, o);
  ASSERT_EQ(mine.next_tokens.size(), theirs.next_tokens.size());
  for (std::size_t i = 0; i < mine.next_tokens.size(); ++i) {
    EXPECT_EQ(mine.next_tokens[i].id, theirs.next_tokens[i].id);
    EXPECT_EQ(mine.next_tokens[i].prob, theirs.next_tokens[i].prob);
  }
  // The trainer's head kinds are the detector's on the probe through the same forward.
  const auto kinds = t.head_kinds();
  ASSERT_EQ(kinds.size(), 2u);
  const Scenario s = t.lift_head(probe, 1, 1);
  EXPECT_EQ(s.Q.rows(), static_cast<Eigen::Index>(probe.size()));
  EXPECT_NE(s.title.find("layer 1 · head 1"), std::string::npos);
  EXPECT_NE(s.title.find("step 40"), std::string::npos);
  // The saved model's head lifted into the lab names whose keys and values it reads: a grouped head's
  // K/V head and the query heads sharing it, not "its own" (the dry run found "its own … keys and
  // values" on a Llama's grouped head).
  ForwardOptions qkv;
  qkv.qkv_layer = 1;
  qkv.qkv_head = 1;
  const Scenario lifted = lift_head(*m, run_model(*m, probe, qkv), 1, 1);
  const bool grouped = want.n_kv_head < want.n_head;
  EXPECT_EQ(lifted.description.find("keys and values of K/V head 0, which query heads 0 to 1 share") != std::string::npos, grouped)
      << lifted.description;
  EXPECT_EQ(lifted.description.find("its own queries, keys and values") != std::string::npos, !grouped) << lifted.description;
  fs::remove_all(dir);
}

TEST_P(EachFamily, TrainingForwardAgreesWithTheInferenceForward) {
  // The batched training forward (decoder_train.cpp) and the model's (decoder_forward.cpp) compose
  // the same blocks in two pages: the loss of a probe must be the one the model's next-token
  // probabilities give at every prefix.
  Trainer t(small_induction(60, GetParam()));
  while (!t.finished()) t.step();
  const auto probe = probe_sequence(t.config().task);
  TaskBatch b;
  b.batch = 1;
  b.length = static_cast<int>(probe.size());
  b.ids = probe;
  b.in_loss.assign(probe.size() - 1, 1);
  b.in_accuracy.assign(probe.size() - 1, 1);
  const double loss = t.loss(b);
  double ref = 0;
  for (std::size_t n = 1; n < probe.size(); ++n) {
    ForwardOptions o;
    o.keep_weights = false;
    o.top_k = t.config().task.symbols;
    const auto tr = t.forward(std::vector<int>(probe.begin(), probe.begin() + static_cast<std::ptrdiff_t>(n)), o);
    for (const auto& nt : tr.next_tokens) {
      if (nt.id == probe[n]) ref -= std::log(static_cast<double>(nt.prob));
    }
  }
  ref /= static_cast<double>(probe.size() - 1);
  // float32 through two layers of width 64: a relative 1e-4 is far above the rounding and far
  // below any real difference in the model.
  EXPECT_NEAR(loss, ref, 1e-4 * (1 + ref));
}

// [SECTION] built-in models

TEST(BuiltinModels, OpenFromMemoryAndSaveAsAFolderThatOpensTheSame) {
  const auto models = builtin_models();
  std::vector<std::string> names;
  for (const auto& m : models) names.push_back(m.name);
  ASSERT_NE(std::find(names.begin(), names.end(), "induction"), names.end());
  ASSERT_NE(std::find(names.begin(), names.end(), "sort"), names.end());
  for (const auto& b : models) {
    EXPECT_EQ(b.name.rfind(b.task, 0), 0u) << b.name << ": a built-in model is named after its task (induction, grammar-bos)";
    const auto m = open_model(b.name);
    const auto* decoder = dynamic_cast<const DecoderModel*>(m.get());
    ASSERT_TRUE(decoder && decoder->memory_files());  // embedded, never a temporary file
    EXPECT_EQ(m->display_name(), b.name);
    EXPECT_EQ(m->parameters(), b.parameters);
    const fs::path dir = fs::temp_directory_path() / ("attnlab_builtin_" + b.name + "_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    m->save(dir, false);
    const auto reopened = DecoderModel::open(dir);
    const std::vector<int> probe = probe_sequence(parse_task_json(m->config().task_json, b.name));
    const ForwardTrace a = m->forward(probe), c = reopened->forward(probe);
    ASSERT_EQ(a.next_tokens.size(), c.next_tokens.size());
    for (std::size_t i = 0; i < a.next_tokens.size(); ++i) {
      EXPECT_EQ(a.next_tokens[i].id, c.next_tokens[i].id);
      EXPECT_EQ(a.next_tokens[i].prob, c.next_tokens[i].prob);
    }
    EXPECT_NE(error_of([&] { m->save(dir, false); }).find("--force"), std::string::npos);
    fs::remove_all(dir);
  }
}

// [SECTION] bad input

TEST(Trainer, RefusesBadConfigsWithASentence) {
  const auto refused = [](TrainConfig c) { return error_of([&] { Trainer t(c); }); };
  TrainConfig c = small_induction(10);
  c.n_head = 5;
  EXPECT_NE(refused(c).find("--heads: d_model 64 is not divisible by 5 heads"), std::string::npos);
  c = small_induction(10);
  c.n_layer = 0;
  EXPECT_NE(refused(c).find("--layers 0"), std::string::npos);
  c = small_induction(10);
  c.n_layer = 1000;
  EXPECT_NE(refused(c).find("give 1 to 12"), std::string::npos);
  c = small_induction(10);
  c.task.symbols = 1;
  EXPECT_NE(refused(c).find("--symbols 1"), std::string::npos);
  c = small_induction(10);
  c.task.length = 100000;
  EXPECT_NE(refused(c).find("--length 100000"), std::string::npos);
  c = small_induction(10);
  c.lr = -1;
  EXPECT_NE(refused(c).find("--lr"), std::string::npos);
  c = small_induction(10);
  c.d_model = 1024, c.n_layer = 12, c.batch = 4096, c.task.length = 512;
  EXPECT_NE(refused(c).find("lower --batch"), std::string::npos);
  c = small_induction(10);
  c.n_kv_head = 1;
  EXPECT_NE(refused(c).find("--kv-heads 1: a GPT-2 gives every head its own K/V heads"), std::string::npos);
  c = small_induction(10, Family::Llama);
  c.n_head = 4, c.n_kv_head = 3;
  EXPECT_NE(refused(c).find("--kv-heads 3: give a number of K/V heads that divides the 4 query heads"), std::string::npos);
  c = small_induction(10, Family::Llama);
  c.d_model = 60, c.n_head = 4;
  EXPECT_NE(refused(c).find("heads of width 15, and rotary positions need an even width"), std::string::npos);
  c = small_induction(10, Family::Qwen3);
  EXPECT_NE(refused(c).find("--family qwen3: attnlab train trains gpt2 and llama models"), std::string::npos);
  c = small_induction(10, Family::Llama);
  c.rope_theta = -1;
  EXPECT_NE(refused(c).find("--rope-theta"), std::string::npos);
}

TEST(Trainer, ALlamaHasItsDefaults) {
  // Grouped K/V in pairs, Llama 2's θ, llama2.c's MLP width, RMSNorm, SwiGLU, attention's biases,
  // its own output.
  const TrainConfig c = resolved(small_induction(10, Family::Llama));
  EXPECT_EQ(c.n_kv_head, c.n_head / 2);
  const ModelConfig m = model_config(c);
  EXPECT_EQ(m.rope_theta, 10000);
  EXPECT_EQ(m.d_ff, 192);  // 8·64/3 = 170.7, up to a multiple of 32
  EXPECT_TRUE(m.norm == NormKind::Rms && m.ffn == FfnKind::SiluGated && m.positions == PositionKind::Rope && !m.tied);
  EXPECT_TRUE(m.qkv_bias && m.o_bias && !m.mlp_bias);
  EXPECT_EQ(resolved(small_induction(10)).n_kv_head, c.n_head);  // a GPT-2: one K/V head per head
}

TEST(Trainer, ALearningRateThatBlowsUpStopsWithWhatToLower) {
  TrainConfig c = small_induction(20);
  c.lr = 1e30;
  Trainer t(c);
  std::string message;
  try {
    while (!t.finished()) t.step();
  } catch (const TrainingDiverged& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("lower --lr"), std::string::npos) << message;
  EXPECT_NE(message.find("at step"), std::string::npos) << message;
}

}  // namespace
}  // namespace attnlab::model
