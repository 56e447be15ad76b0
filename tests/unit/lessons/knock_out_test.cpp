// The knock-out lesson (engine/lessons/knock_out.hpp): its accuracies against a count made here, one
// forward per judged position over the text up to it with the heads zeroed, the most probable token
// read from the last position's logits; the properties the lesson's text claims; the probe's
// prediction; the hand-made head's knocked-out weight against even attention.
#include "engine/cpu/cpu_backend.hpp"
#include "engine/lessons/knock_out.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/model/model_report.hpp"
#include "engine/model/training_tasks.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace attnlab {
namespace {

using model::HeadIndex;

bool has_induction_model() {
  const auto b = model::builtin_models();
  return std::any_of(b.begin(), b.end(), [](const model::BuiltinModel& m) { return m.name == kKnockOutModel; });
}

// The logits after `ids` with `heads` zeroed, at the last position.
std::vector<float> next_logits(const model::LanguageModel& m, const std::vector<int>& ids, const std::vector<HeadIndex>& heads) {
  model::ForwardOptions o;
  o.keep_weights = false;
  o.keep_logits = true;
  o.top_k = 0;
  o.edits = model::ablation_edits(heads, model::HeadEdit::Kind::Zero);
  return m.forward(ids, o).logits;
}

// The most probable next token after `ids` with `heads` zeroed.
int next_token(const model::LanguageModel& m, const std::vector<int>& ids, const std::vector<HeadIndex>& heads) {
  const std::vector<float> logits = next_logits(m, ids, heads);
  return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

// The judged positions' right guesses, counted one prefix at a time.
model::TaskAccuracy count_right(const model::LanguageModel& m, const std::vector<HeadIndex>& heads, int sequences, std::uint64_t seed) {
  model::TaskGenerator tasks(model::parse_task_json(m.config().task_json, "induction"), seed);
  const model::TaskBatch batch = tasks.judged(sequences);
  const auto length = static_cast<std::size_t>(batch.length);
  model::TaskAccuracy a;
  for (std::size_t row = 0; row < static_cast<std::size_t>(batch.batch); ++row) {
    const auto first = batch.ids.begin() + static_cast<std::ptrdiff_t>(row * length);
    for (std::size_t t = 0; t + 1 < length; ++t) {
      if (!batch.in_accuracy[row * (length - 1) + t]) continue;
      ++a.counted;
      a.right += next_token(m, std::vector<int>(first, first + static_cast<std::ptrdiff_t>(t + 1)), heads) == first[static_cast<std::ptrdiff_t>(t + 1)];
    }
  }
  return a;
}

class KnockOutLesson : public ::testing::Test {
protected:
  static void SetUpTestSuite() {
    if (!has_induction_model()) return;
    const Scenario s = load_preset("knock-out");
    auto backend = make_cpu_backend();
    const Result r = backend->compute(s.problem());
    numbers_ = new KnockOutNumbers(compute_knock_out(s, r, *backend, LessonDetail{}));
  }
  static void TearDownTestSuite() {
    delete numbers_;
    numbers_ = nullptr;
  }
  void SetUp() override {
    if (!numbers_) GTEST_SKIP() << "no built-in induction model in this build";
  }
  static KnockOutNumbers* numbers_;
};
KnockOutNumbers* KnockOutLesson::numbers_ = nullptr;

TEST_F(KnockOutLesson, AccuraciesAreACountOfRightGuessesMadeHere) {
  const KnockOutNumbers& n = *numbers_;
  const auto m = model::open_model(n.model);
  for (const KnockOutRun* run : {&n.as_is, &n.induction_out, &n.previous_out}) {
    const model::TaskAccuracy mine = count_right(*m, run->heads, n.sequences, n.seed);
    EXPECT_EQ(run->accuracy.counted, mine.counted);
    // A forward over a prefix sums in another order than one over the whole sequence: a near tie
    // between two tokens may go either way, so a position or two of the 470 may differ.
    EXPECT_NEAR(run->accuracy.right, mine.right, 2) << run->heads.size() << " heads out";
  }
  EXPECT_EQ(n.as_is.accuracy.counted, n.induction_out.accuracy.counted) << "every choice is judged on the same sample";
  EXPECT_GT(n.as_is.accuracy.counted, 400) << "a sample large enough to read a percent from";
}

TEST_F(KnockOutLesson, TheHeadsComposeAsTheTextSays) {
  const KnockOutNumbers& n = *numbers_;
  ASSERT_FALSE(n.induction_out.heads.empty());
  ASSERT_FALSE(n.previous_out.heads.empty());
  for (const HeadIndex& h : n.induction_out.heads) {
    EXPECT_TRUE(std::find(n.previous_out.heads.begin(), n.previous_out.heads.end(), h) == n.previous_out.heads.end());
  }
  EXPECT_GT(n.as_is.accuracy.value(), 0.9);
  EXPECT_LT(n.induction_out.accuracy.value(), 0.3);
  EXPECT_LT(n.previous_out.accuracy.value(), n.as_is.accuracy.value());
  EXPECT_LT(n.previous_out.accuracy.value(), 0.5 * n.as_is.accuracy.value());
  // The kinds are the detector's on the probe, whatever index each head has.
  const model::ModelRun run = model::run_model(*model::open_model(n.model), n.probe.ids, {});
  ASSERT_EQ(n.heads.size(), 4u);
  for (const KnockOutHead& h : n.heads) {
    EXPECT_EQ(h.verdict.kind, run.kinds[static_cast<std::size_t>(h.head.layer)][static_cast<std::size_t>(h.head.head)].kind);
    // The GUI's call for the same head gives the page's numbers.
    EXPECT_EQ(knock_out(n, {h.head}).accuracy.right, h.alone.accuracy.right) << head_label(h.head);
  }
}

TEST_F(KnockOutLesson, TheProbeIsCopiedAsIsAndNotWithTheInductionHeadsOut) {
  const KnockOutNumbers& n = *numbers_;
  const auto m = model::open_model(n.model);
  const std::size_t p = static_cast<std::size_t>(n.probe.position);
  ASSERT_LT(p + 1, n.probe.ids.size());
  EXPECT_EQ(n.probe.truth, n.probe.ids[p + 1]);
  const std::vector<int> prefix(n.probe.ids.begin(), n.probe.ids.begin() + static_cast<std::ptrdiff_t>(p + 1));
  EXPECT_EQ(n.as_is.predicted, n.probe.truth);
  // The page's token is the most probable over the prefix too (with a knocked-out model's flat
  // distribution, within float32's rounding of the most probable one).
  for (const KnockOutRun* run : {&n.as_is, &n.induction_out, &n.previous_out}) {
    const std::vector<float> logits = next_logits(*m, prefix, run->heads);
    EXPECT_GE(logits.at(static_cast<std::size_t>(run->predicted)), *std::max_element(logits.begin(), logits.end()) - 1e-4f);
  }
  EXPECT_GT(n.as_is.prob, n.induction_out.prob);
}

TEST_F(KnockOutLesson, TheHandMadeHeadWithItsKeysZeroedAttendsEvenly) {
  const HandMadeKnockOut& h = numbers_->hand_made;
  const Scenario s = load_preset("knock-out");
  const Result r = make_cpu_backend()->compute(s.problem());
  EXPECT_EQ(h.row, r.n - 1);
  EXPECT_FLOAT_EQ(static_cast<float>(h.weight), r.weights.row(h.row).maxCoeff());
  EXPECT_GT(h.weight, 0.9);
  EXPECT_NEAR(h.knocked_out_weight, 1.0 / static_cast<double>(h.row + 1), 1e-6);
}

TEST(KnockOutExercise, TheKnockedOutWeightIsEvenOverTheVisibleKeys) {
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    const Exercise e = make_exercise("knock-out", seed);
    ASSERT_EQ(e.parts.size(), 3u);
    const ExercisePart& even = e.parts[2];
    const long long row = e.parts[0].row;
    EXPECT_NEAR(*even.expected.values[0], 1.0 / static_cast<double>(row + 1), 1e-12);
    ASSERT_EQ(even.mistakes.size(), 1u);
    EXPECT_EQ(even.mistakes[0].mistake, Mistake::NoMask);
    EXPECT_NEAR(*even.mistakes[0].value.values[0], 1.0 / static_cast<double>(e.given.K.rows()), 1e-12);
  }
}

}  // namespace
}  // namespace attnlab
