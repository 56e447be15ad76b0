// Interventions' properties (interventions.hpp): edits that change nothing leave every number as
// it was, an edit changes only what runs after it, and on the built-in induction model knocking
// out the induction heads breaks the copy, and knocking out the previous-token heads breaks it too
// (the two heads compose; docs/MODELS.md, "Interventions").
#include "engine/model/decoder_model.hpp"
#include "engine/model/interventions.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/training_tasks.hpp"
#include "support/random_decoder.hpp"

#include <gtest/gtest.h>

namespace attnlab::model {
namespace {

std::vector<float> all_logits(const LanguageModel& m, const std::vector<int>& ids, const std::vector<HeadEdit>& edits) {
  ForwardOptions o;
  o.keep_logits = true;
  o.edits = edits;
  return m.forward(ids, o).logits;
}

TEST(Interventions, EditsThatChangeNothingChangeNothing) {
  RandomModel rm("llama", R"(, "num_key_value_heads": 2)", 7);
  const auto m = DecoderModel::open(rm.dir);
  const std::vector<int> ids{3, 14, 15, 9, 2, 6, 5, 35, 8, 9};
  ForwardOptions keep;
  keep.keep_outputs = true;
  keep.keep_logits = true;
  const ForwardTrace clean = m->forward(ids, keep);
  // A patch from the same text and a head's own output put back: bit for bit the same.
  const std::vector<HeadIndex> heads{{0, 1}, {1, 3}};
  EXPECT_EQ(all_logits(*m, ids, patch_edits(heads, clean)), clean.logits);
  // Over one token a head's mean is its output and uniform weights over one key are its weights.
  const std::vector<int> one{ids.front()};
  const auto alone = all_logits(*m, one, {});
  for (const auto kind : {HeadEdit::Kind::Mean, HeadEdit::Kind::Uniform}) {
    const auto edited = all_logits(*m, one, ablation_edits(heads, kind));
    for (std::size_t i = 0; i < alone.size(); ++i) ASSERT_NEAR(edited[i], alone[i], 1e-5f) << ablation_name(kind);
  }
}

TEST(Interventions, AnEditChangesOnlyWhatRunsAfterIt) {
  RandomModel rm("llama", R"(, "num_key_value_heads": 2)", 8);
  const auto m = DecoderModel::open(rm.dir);
  const std::vector<int> ids{1, 2, 3, 4, 5, 6, 7, 8};
  ForwardOptions o;
  const ForwardTrace clean = m->forward(ids, o);
  o.edits = ablation_edits({{1, 2}}, HeadEdit::Kind::Zero);
  const ForwardTrace edited = m->forward(ids, o);
  // Layer 0 and layer 1's own weights come before the edit; the prediction after it.
  for (std::size_t l = 0; l < 2; ++l) {
    for (std::size_t h = 0; h < 4; ++h) EXPECT_EQ(max_abs_difference(clean.heads[l][h].weights, edited.heads[l][h].weights), 0.0);
  }
  EXPECT_NE(clean.next_tokens.front().prob, edited.next_tokens.front().prob);
  // Uniform weights are what the changed forward keeps for that head.
  o.edits = ablation_edits({{0, 3}}, HeadEdit::Kind::Uniform);
  const ForwardTrace uniform = m->forward(ids, o);
  for (std::int64_t i = 0; i < 8; ++i) {
    for (std::int64_t j = 0; j <= i; ++j) EXPECT_FLOAT_EQ(uniform.heads[0][3].weights(i, j), 1.0f / static_cast<float>(i + 1));
  }
}

// A lab's edit put back: its output replaces the head's, and its weights are kept in the head's place
// (their causal part), so the window draws what the lab computed.
TEST(Interventions, AReplacementKeepsTheWeightsThatMadeIt) {
  RandomModel rm("llama", "", 10);
  const auto m = DecoderModel::open(rm.dir);
  const std::vector<int> ids{4, 8, 15, 16, 23};
  ForwardOptions o;
  o.keep_outputs = true;
  const ForwardTrace clean = m->forward(ids, o);
  Matrix weights = Matrix::Constant(5, 5, 0.2f);  // even weights over every key, later ones too
  o.edits = {HeadEdit{1, 0, HeadEdit::Kind::Replace, clean.heads[1][0].output, weights}};
  const ForwardTrace edited = m->forward(ids, o);
  for (std::int64_t i = 0; i < 5; ++i) {
    for (std::int64_t j = 0; j <= i; ++j) EXPECT_EQ(edited.heads[1][0].weights(i, j), 0.2f);
  }
  EXPECT_EQ(edited.next_tokens.front().prob, clean.next_tokens.front().prob) << "its own output: the prediction as it was";
  o.edits.front().weights = Matrix(4, 5);  // a row short
  EXPECT_THROW(m->forward(ids, o), InputError);
}

TEST(Interventions, BadEditsAreRefused) {
  RandomModel rm("llama", "", 9);
  const auto m = DecoderModel::open(rm.dir);
  ForwardOptions o;
  o.edits = ablation_edits({{2, 0}}, HeadEdit::Kind::Zero);
  EXPECT_THROW(m->forward({1, 2}, o), InputError);
  o.edits = ablation_edits({{0, 0}, {0, 0}}, HeadEdit::Kind::Zero);
  EXPECT_THROW(m->forward({1, 2}, o), InputError);
  o.edits = {HeadEdit{0, 0, HeadEdit::Kind::Replace, Matrix(3, m->config().d_head), {}}};
  EXPECT_THROW(m->forward({1, 2}, o), InputError);
  EXPECT_THROW(parse_heads("0.0,", m->config(), "--ablate"), InputError);
  EXPECT_THROW(parse_heads("", m->config(), "--ablate"), InputError);
  EXPECT_THROW(parse_heads("0.4", m->config(), "--ablate"), InputError);
  EXPECT_EQ(parse_heads(" 1.3, 0.0", m->config(), "--ablate"), (std::vector<HeadIndex>{{1, 3}, {0, 0}}));
}

// The heads of `kind` on the model's own probe sequence, as the Model window names them.
std::vector<HeadIndex> heads_of(const LanguageModel& m, HeadKind kind) {
  const ModelRun run = run_model(m, probe_sequence(parse_task_json(m.config().task_json, "induction")), {});
  std::vector<HeadIndex> out;
  for (std::size_t l = 0; l < run.kinds.size(); ++l) {
    for (std::size_t h = 0; h < run.kinds[l].size(); ++h) {
      if (run.kinds[l][h].kind == kind) out.push_back({static_cast<int>(l), static_cast<int>(h)});
    }
  }
  return out;
}

TEST(Interventions, KnockingOutTheInductionCircuitBreaksTheCopy) {
  if (builtin_models().empty()) GTEST_SKIP() << "no built-in models in this build";
  const auto m = open_model("induction");
  const auto induction = heads_of(*m, HeadKind::Induction), previous = heads_of(*m, HeadKind::PreviousToken);
  ASSERT_FALSE(induction.empty());
  ASSERT_FALSE(previous.empty());
  constexpr int kSequences = 64;
  const TaskAccuracy clean = task_accuracy(*m, {}, kSequences, 71);
  const TaskAccuracy no_induction = task_accuracy(*m, ablation_edits(induction, HeadEdit::Kind::Zero), kSequences, 71);
  const TaskAccuracy no_previous = task_accuracy(*m, ablation_edits(previous, HeadEdit::Kind::Zero), kSequences, 71);
  std::printf("copy accuracy: %.3f, induction heads out %.3f, previous-token heads out %.3f (%d positions)\n", clean.value(),
              no_induction.value(), no_previous.value(), clean.counted);
  EXPECT_GT(clean.value(), 0.9);
  EXPECT_LT(no_induction.value(), 0.3);
  EXPECT_LT(no_previous.value(), 0.5 * clean.value());
}

}  // namespace
}  // namespace attnlab::model
