// Float32 overflow in the pipeline (issue 8): a row whose visible scores all overflow to −∞ is not
// a masked row on any CPU path, and every overflow comes with a sentence (engine/attention/overflow_notes.hpp)
// naming the stage and the row. Also the CSV reader's sign rule.
#include "engine/attention/attention.hpp"
#include "engine/io/matrix_io.hpp"
#include "engine/attention/overflow_notes.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/text/text_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

namespace attnlab {
namespace {

constexpr float kInf = INFINITY;

// Row 1: every visible score is −∞ (1e38 · −1e38); key 3 is blocked for it. Row 2: finite.
Problem overflowing_row() {
  Problem p;
  p.Q = Matrix{{1e38f}, {1}};
  p.K = Matrix{{-1e38f}, {-1e38f}, {1}};
  p.V = Matrix{{1}, {2}, {3}};
  p.options.scale = false;
  p.options.mask.kind = MaskKind::Custom;
  p.options.mask.blocked = BlockGrid{{0, 0, 1}, {0, 0, 0}};
  return p;
}

TEST(Overflow, AllMinusInfinityRowIsSplitEvenlyAndNotMaskedOnBothCpuPaths) {
  const Problem p = overflowing_row();
  const Result dense = compute_cpu(p);
  const Result streamed = compute_streaming_cpu(p);
  ASSERT_EQ(dense.scores(0, 0), -kInf);
  for (const Result* r : {&dense, &streamed}) {
    SCOPED_TRACE(r == &dense ? "dense" : "streaming");
    EXPECT_FALSE(r->rows[0].fully_masked) << "the row's keys are visible; only their scores overflowed";
    EXPECT_FLOAT_EQ(r->rows[0].max_weight, 0.5f);
    EXPECT_FLOAT_EQ(r->output(0, 0), 1.5f);  // (1 + 2) / 2
    EXPECT_FLOAT_EQ(r->output(1, 0), 3.0f);
  }
  EXPECT_EQ(dense.weights(0, 0), 0.5f);
  EXPECT_EQ(dense.weights(0, 2), 0.0f);
}

TEST(Overflow, ReallyMaskedRowsStayFlaggedOnTheStreamingPath) {
  Problem p = overflowing_row();
  p.options.mask.blocked = BlockGrid{{1, 1, 1}, {0, 0, 0}};
  const Result s = compute_streaming_cpu(p);
  EXPECT_TRUE(s.rows[0].fully_masked);
  EXPECT_EQ(s.output(0, 0), 0.0f);
}

TEST(Overflow, NotesNameTheRowAndTheReason) {
  const Problem p = overflowing_row();
  const Result r = compute_cpu(p);
  const OverflowNotes notes = overflow_notes(r, p.options.mask.blocked, {"the", "cat"});
  ASSERT_EQ(notes.sentences.size(), 1u);
  EXPECT_EQ(notes.rows[0], RowOverflow::ScoresAllNegInf);
  EXPECT_EQ(notes.rows[1], RowOverflow::None);
  const std::string& s = notes.sentences[0];
  EXPECT_NE(s.find("scores overflow float32 at row 1 (the)"), std::string::npos) << s;
  EXPECT_NE(s.find("not masked"), std::string::npos) << s;
  EXPECT_EQ(s.find('\n'), std::string::npos);
}

TEST(Overflow, EachKindHasItsSentence) {
  // +∞ scores: the key that overflowed takes the row.
  Problem p;
  p.Q = Matrix{{1e20f}, {1}};
  p.K = Matrix{{1e20f}, {1}, {-1e20f}};
  p.V = Matrix{{1}, {2}, {3}};
  Result r = compute_cpu(p);
  OverflowNotes n = overflow_notes(r, BlockGrid(), {});
  EXPECT_EQ(n.rows[0], RowOverflow::ScoresPosInf);
  EXPECT_EQ(n.rows[1], RowOverflow::None);
  // Row 1 has both a +∞ and a −∞ score: one sentence for each.
  ASSERT_EQ(n.sentences.size(), 2u);
  EXPECT_NE(n.sentences[0].find("row 1: a score above 3.4e38 shows as +inf"), std::string::npos) << n.sentences[0];
  EXPECT_NE(n.sentences[1].find("row 1: a score below -3.4e38"), std::string::npos) << n.sentences[1];
  // Some −∞ among finite scores.
  p.Q = Matrix{{-1e20f}};
  p.K = Matrix{{1e20f}, {0}};
  p.V = Matrix{{1}, {2}};
  r = compute_cpu(p);
  n = overflow_notes(r, BlockGrid(), {});
  EXPECT_EQ(n.rows[0], RowOverflow::ScoresNegInf);
  EXPECT_EQ(r.weights(0, 1), 1.0f);
  // Finite scores, infinite logits: a temperature of 0.05 unscaled on scores of 1e38.
  p.Q = Matrix{{1e19f}, {0}};
  p.K = Matrix{{1e19f}, {1}};
  p.options.scale = false;
  p.options.temperature = 0.05;
  r = compute_cpu(p);
  ASSERT_TRUE(std::isinf(r.logits(0, 0)));
  n = overflow_notes(r, BlockGrid(), {});
  EXPECT_EQ(n.rows[0], RowOverflow::Logits);
  ASSERT_EQ(n.sentences.size(), 1u);
  EXPECT_NE(n.sentences[0].find("logits overflow float32 at row 1"), std::string::npos) << n.sentences[0];
  EXPECT_NE(n.sentences[0].find("0.05"), std::string::npos) << n.sentences[0];
  // Overflow in blocked cells only, and many rows.
  p.Q = Matrix::Constant(5, 1, 1e20f);
  p.K = Matrix{{1e20f}, {1}};
  p.options = Options{};
  p.options.mask.kind = MaskKind::Custom;
  p.options.mask.blocked = BlockGrid{{1, 0}, {1, 0}, {1, 0}, {1, 0}, {1, 0}};
  r = compute_cpu(p);
  n = overflow_notes(r, p.options.mask.blocked, {});
  EXPECT_EQ(n.rows[4], RowOverflow::ScoresBlocked);
  ASSERT_EQ(n.sentences.size(), 1u);
  EXPECT_NE(n.sentences[0].find("rows 1, 2, 3 and 2 more"), std::string::npos) << n.sentences[0];
  EXPECT_NE(n.sentences[0].find("blocked"), std::string::npos) << n.sentences[0];
}

// Scores whose float32 sum could overflow depend on the order of summation (the BLAS kernel, FMA
// or not); the engine computes those in double instead. A seeded sweep of entries near 1e19–1e20
// (products near float's 3.4e38): every score is checked against the exact dot product from an
// independent double loop here.
TEST(Overflow, ScoresNearFloatsLimitAreTheExactDotProductOnEveryPath) {
  std::mt19937 rng(41);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(17, 20);
  for (int trial = 0; trial < 20; ++trial) {
    const Eigen::Index n = 1 + trial % 7, m = 3 + trial % 11, dk = 1 + trial % 5;
    Problem p;
    p.Q.resize(n, dk);
    p.K.resize(m, dk);
    for (float* x = p.Q.data(); x != p.Q.data() + p.Q.size(); ++x) *x = mantissa(rng) * std::pow(10.0f, exponent(rng));
    for (float* x = p.K.data(); x != p.K.data() + p.K.size(); ++x) *x = mantissa(rng) * std::pow(10.0f, exponent(rng));
    p.V = Matrix::Random(m, 2);
    const Result dense = compute_cpu(p);
    const Result streamed = compute_streaming_cpu(p);
    const double risk = 3.4028234663852886e38 * (1.0 - static_cast<double>(dk + 1) * 0x1p-24);
    for (Eigen::Index i = 0; i < n; ++i) {
      bool row_at_risk = false;
      for (Eigen::Index j = 0; j < m; ++j) {
        double exact = 0, magnitude = 0;
        for (Eigen::Index l = 0; l < dk; ++l) {
          exact += static_cast<double>(p.Q(i, l)) * p.K(j, l);
          magnitude += std::fabs(static_cast<double>(p.Q(i, l)) * p.K(j, l));
        }
        const float s = dense.scores(i, j);
        SCOPED_TRACE("trial " + std::to_string(trial) + " cell " + std::to_string(i) + "," + std::to_string(j));
        ASSERT_FALSE(std::isnan(s));
        if (magnitude >= risk) {
          row_at_risk = true;
          const double beyond = 0x1.ffffffp+127;  // rounds to ±∞ from here
          if (std::fabs(exact) >= beyond) EXPECT_EQ(s, exact > 0 ? kInf : -kInf);
          else EXPECT_EQ(s, static_cast<float>(exact));
        } else {
          // The BLAS product: finite in any order, within float32 summation's rounding bound.
          ASSERT_TRUE(std::isfinite(s));
          EXPECT_LE(std::fabs(s - exact), static_cast<double>(dk + 1) * 0x1p-24 * magnitude * 1.01);
        }
      }
      EXPECT_EQ(dense.rows[static_cast<size_t>(i)].scores_recomputed, row_at_risk);
      EXPECT_EQ(streamed.rows[static_cast<size_t>(i)].scores_recomputed, row_at_risk);
    }
    EXPECT_FALSE(dense.output.hasNaN());
    EXPECT_FALSE(streamed.output.hasNaN());
  }
}

// A score at ±∞ makes the spread unbounded: the std is +∞ (never the 0 that NaN arithmetic
// clamped to), and the mean of cells at +∞ and at −∞ does not exist (NaN, JSON null, "undefined").
TEST(Overflow, StatisticsOfOverflowedScoresSayTheSpreadIsUnbounded) {
  Problem p;
  p.Q = Matrix{{1e38f, 1}, {1, 1}};
  p.K = Matrix{{1e38f, 0}, {1, 1}};
  p.V = Matrix::Identity(2, 2);
  for (const bool both_signs : {false, true}) {
    if (both_signs) p.Q(1, 0) = -1e38f;  // row 2: −∞ against key 1
    const Result dense = compute_cpu(p);
    const Result streamed = compute_streaming_cpu(p);
    for (const Result* r : {&dense, &streamed}) {
      SCOPED_TRACE(std::string(r == &dense ? "dense" : "streaming") + (both_signs ? ", ±inf" : ", +inf"));
      for (const MomentStats* st : {&r->stats.scores, &r->stats.logits}) {
        EXPECT_EQ(st->std, kInf);
        EXPECT_EQ(st->max, kInf);
        if (both_signs) {
          EXPECT_TRUE(std::isnan(st->mean));
          EXPECT_EQ(st->min, -kInf);
        } else {
          EXPECT_EQ(st->mean, kInf);
          EXPECT_TRUE(std::isfinite(st->min));
        }
      }
    }
  }
  EXPECT_EQ(format_number(std::nan(""), NumberUse::Statistic, 4), "undefined");
  EXPECT_EQ(format_number(-INFINITY, NumberUse::Statistic, 4), "-inf");
}

TEST(Overflow, NothingToSayAboutOrdinaryResults) {
  Problem p;
  p.Q = Matrix{{1, 0}, {0, 1}};
  p.K = p.Q;
  p.V = p.Q;
  p.options.mask.kind = MaskKind::Causal;
  const Result r = compute_cpu(p);
  EXPECT_TRUE(overflow_notes(r, mask_grid(p.options.mask, 2, 2), {}).empty());
}

TEST(CsvSigns, APlusBeforeAnotherSignIsAnErrorNamingFileLineAndColumn) {
  EXPECT_FLOAT_EQ(parse_csv("+1.5,-2\n", "q.csv")(0, 0), 1.5f);
  for (const char* bad : {"1,+-1\n", "1,++1\n", "1,+\n", "1,-+1\n"}) {
    try {
      parse_csv(bad, "q.csv");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("q.csv: line 1, column 2"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace attnlab
