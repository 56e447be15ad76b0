// The online-softmax lesson (engine/lessons/online_softmax.*): every step's running max,
// running sum, partial output and rescale against a plain double loop over the same scenario, the
// final o ÷ ℓ against the dense output, and what an edit or a mask does to the steps. Bounds come
// from the problem's magnitudes (tests/support/attention_bounds.hpp), never from this machine.
#include "engine/cpu/dense.hpp"
#include "engine/lessons/online_softmax.hpp"
#include "engine/lessons/presets.hpp"
#include "support/attention_bounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {
namespace {

using Index = Eigen::Index;
using test::MatrixD;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The steps as the lesson describes them, recomputed in double with no shared code: per row and
// tile, m = max of the logits seen, ℓ = Σ e^(L − m), o = Σ e^(L − m) v, α = e^(m_old − m_new).
struct Reference {
  std::vector<MatrixD> m, l;             // [step] n × 1
  std::vector<std::vector<MatrixD>> o;   // [step][row] 1 × d_v
  std::vector<MatrixD> alpha;            // [step] n × 1, NaN where no earlier key
  MatrixD logits;                        // n × m, −∞ where blocked
};

Reference reference(const Problem& p, Index tile) {
  const Index n = p.Q.rows(), m = p.K.rows(), dv = p.V.cols();
  const double s = p.options.scale ? std::sqrt(static_cast<double>(p.Q.cols())) : 1.0;
  Reference r;
  r.logits = MatrixD(n, m);
  for (Index i = 0; i < n; ++i)
    for (Index j = 0; j < m; ++j) {
      double dot = 0;
      for (Index k = 0; k < p.Q.cols(); ++k) dot += static_cast<double>(p.Q(i, k)) * p.K(j, k);
      r.logits(i, j) = p.options.mask.is_blocked(i, j) ? -kInf : dot / (s * p.options.temperature);
    }
  std::vector<double> mx(static_cast<size_t>(n), -kInf), sum(static_cast<size_t>(n), 0);
  MatrixD o = MatrixD::Zero(n, dv);
  for (Index c0 = 0; c0 < m; c0 += tile) {
    const Index c1 = std::min(m, c0 + tile);
    MatrixD ms(n, 1), ls(n, 1), as(n, 1);
    std::vector<MatrixD> os;
    for (Index i = 0; i < n; ++i) {
      double tile_max = -kInf;
      for (Index j = c0; j < c1; ++j) tile_max = std::max(tile_max, r.logits(i, j));
      const double old = mx[static_cast<size_t>(i)], now = std::max(old, tile_max);
      as(i, 0) = sum[static_cast<size_t>(i)] > 0 ? std::exp(old - now) : std::nan("");
      if (now > -kInf) {
        const double a = sum[static_cast<size_t>(i)] > 0 ? std::exp(old - now) : 0.0;
        sum[static_cast<size_t>(i)] *= a;
        o.row(i) *= a;
        for (Index j = c0; j < c1; ++j) {
          const double e = std::exp(r.logits(i, j) - now);
          sum[static_cast<size_t>(i)] += e;
          o.row(i) += e * p.V.row(j).cast<double>();
        }
      }
      mx[static_cast<size_t>(i)] = now;
      ms(i, 0) = now;
      ls(i, 0) = sum[static_cast<size_t>(i)];
      os.push_back(o.row(i));
    }
    r.m.push_back(ms);
    r.l.push_back(ls);
    r.alpha.push_back(as);
    r.o.push_back(os);
  }
  return r;
}

// Checks every step of `got` against the double loop. The float path's logits are within ΔL of
// the exact ones (attention_bounds), so each exp argument L − m within 2·ΔL: every e^(L − m), and
// so ℓ, o and α, within a factor e^(2ΔL + exp's own error) − 1, plus the float sums' γ_m.
void expect_matches_reference(const Problem& p, const OnlineSoftmaxLesson& got, Index tile) {
  const Result dense = compute_cpu(p);
  const test::AttentionBounds b = test::attention_bounds(p, dense);
  const Reference ref = reference(p, tile);
  const Index n = p.Q.rows(), dv = p.V.cols();
  ASSERT_EQ(got.steps.size(), ref.m.size());
  const double u = test::kUnitRoundoff, g = test::gamma_n(static_cast<double>(p.K.rows()) + 2);
  for (size_t t = 0; t < got.steps.size(); ++t) {
    const OnlineSoftmaxStep& st = got.steps[t];
    ASSERT_EQ(st.rows.size(), static_cast<size_t>(n));
    for (Index i = 0; i < n; ++i) {
      SCOPED_TRACE("tile " + std::to_string(t + 1) + ", row " + std::to_string(i + 1));
      const OnlineSoftmaxRow& r = st.rows[static_cast<size_t>(i)];
      double dl = 0, x = 0, vmag = 0;  // the largest ΔL and |L − m| over the keys seen, Σ e^(L−m)|v|
      for (Index j = 0; j <= st.last; ++j) {
        if (std::isinf(ref.logits(i, j))) continue;
        dl = std::max(dl, b.logits(i, j));
        x = std::max(x, std::abs(ref.logits(i, j) - ref.m[t](i, 0)));
        vmag = std::max(vmag, static_cast<double>(p.V.row(j).cwiseAbs().maxCoeff()));
      }
      const double rel = std::expm1(2 * dl + test::exp_error(x)) + g + 2 * u * static_cast<double>(t + 1);
      if (std::isinf(ref.m[t](i, 0))) {
        EXPECT_TRUE(std::isinf(r.running_max) && r.running_max < 0);
        EXPECT_EQ(r.running_sum, 0.0);
        EXPECT_FALSE(r.rescale.has_value());
        continue;
      }
      EXPECT_NEAR(r.running_max, ref.m[t](i, 0), dl + 2 * u * std::abs(ref.m[t](i, 0)));
      EXPECT_NEAR(r.running_sum, ref.l[t](i, 0), rel * ref.l[t](i, 0));
      for (Index c = 0; c < dv; ++c) {
        EXPECT_NEAR(r.output[static_cast<size_t>(c)], ref.o[t][static_cast<size_t>(i)](0, c), rel * ref.l[t](i, 0) * vmag);
      }
      if (std::isnan(ref.alpha[t](i, 0))) {
        EXPECT_FALSE(r.rescale.has_value());
      } else {
        ASSERT_TRUE(r.rescale.has_value());
        EXPECT_NEAR(*r.rescale, ref.alpha[t](i, 0), std::expm1(4 * dl + 4 * u) * ref.alpha[t](i, 0) + u);
      }
    }
  }
  // o ÷ ℓ is the dense output within what two conforming float32 computations may differ by.
  for (Index i = 0; i < n; ++i)
    for (Index c = 0; c < dv; ++c) EXPECT_NEAR(got.output(i, c), dense.output(i, c), b.output(i, c)) << i << "," << c;
  EXPECT_LE(got.max_difference, b.output.maxCoeff());
}

TEST(OnlineSoftmaxLesson, StepsMatchAPlainLoopAndEndOnTheDenseOutput) {
  const Scenario s = load_preset("online-softmax");
  ASSERT_EQ(s.lesson.view_name, kOnlineSoftmaxView);
  const Problem p = s.problem();
  const Index tile = online_softmax_params(LessonFields(s.lesson)).tile, m = p.K.rows();
  const OnlineSoftmaxLesson l = online_softmax_lesson(p, tile, compute_cpu(p).output);
  ASSERT_EQ(static_cast<Index>(l.steps.size()), (m + tile - 1) / tile);
  for (size_t t = 0; t < l.steps.size(); ++t) {
    EXPECT_EQ(l.steps[t].first, static_cast<Index>(t) * tile);
    EXPECT_EQ(l.steps[t].last, std::min(m, static_cast<Index>(t + 1) * tile) - 1);
  }
  EXPECT_EQ(l.scores_held, p.Q.rows() * tile);
  EXPECT_EQ(l.dense_scores, p.Q.rows() * m);
  expect_matches_reference(p, l, tile);
}

// A tile that brings a row a larger max rescales it (α < 1), one that does not leaves α = 1, and
// the first tile has nothing to rescale: decided from the double loop's maxima.
TEST(OnlineSoftmaxLesson, ATileThatRaisesTheMaxRescales) {
  const Problem p = load_preset("online-softmax").problem();
  const OnlineSoftmaxLesson l = online_softmax_lesson(p, 4, compute_cpu(p).output);
  const Reference ref = reference(p, 4);
  long long raised = 0;
  for (size_t t = 0; t < l.steps.size(); ++t) {
    for (Index i = 0; i < p.Q.rows(); ++i) {
      const OnlineSoftmaxRow& r = l.steps[t].rows[static_cast<size_t>(i)];
      if (t == 0) {
        EXPECT_FALSE(r.rescale.has_value());
        continue;
      }
      const bool up = ref.m[t](i, 0) > ref.m[t - 1](i, 0);
      EXPECT_EQ(r.max_raised(), up) << "tile " << t + 1 << ", row " << i + 1;
      if (!up) {
        EXPECT_EQ(*r.rescale, 1.0);
      }
      raised += up;
    }
  }
  EXPECT_EQ(l.rescales, raised);
  EXPECT_GT(raised, 0) << "the lesson's scenario should show at least one rescale";
}

// The lesson's "Try": key 10's first number set to −3 moves row 4's largest score into the last
// tile, which then rescales that row.
TEST(OnlineSoftmaxLesson, AnEditThatMovesTheMaxIntoALaterTileShowsTheRescaleThere) {
  Problem p = load_preset("online-softmax").problem();
  const OnlineSoftmaxLesson before = online_softmax_lesson(p, 4, compute_cpu(p).output);
  EXPECT_FALSE(before.steps[2].rows[3].max_raised());
  p.K(9, 0) = -3.0f;
  const OnlineSoftmaxLesson after = online_softmax_lesson(p, 4, compute_cpu(p).output);
  EXPECT_TRUE(after.steps[2].rows[3].max_raised());
  EXPECT_LT(*after.steps[2].rows[3].rescale, 1.0);
  expect_matches_reference(p, after, 4);
}

// Masks: blocked keys are never seen, a row's tiles past its causal edge change nothing, and a
// row with every key blocked ends at zero, never NaN. Tiles that do not divide m, and a tile wider
// than m (one step: the dense path).
TEST(OnlineSoftmaxLesson, MasksAndTileWidths) {
  Problem p = load_preset("online-softmax").problem();
  p.options.mask = Mask{MaskKind::Causal, 0, {}};
  for (const Index tile : {Index{1}, Index{4}, Index{5}, Index{12}, Index{50}}) {
    SCOPED_TRACE("tile " + std::to_string(tile));
    const OnlineSoftmaxLesson l = online_softmax_lesson(p, tile, compute_cpu(p).output);
    expect_matches_reference(p, l, tile);
    for (const OnlineSoftmaxStep& st : l.steps)
      for (Index i = 0; i < p.Q.rows(); ++i) {
        const Index seen = std::max<Index>(0, std::min(st.last, i) - st.first + 1);
        EXPECT_EQ(st.rows[static_cast<size_t>(i)].visible, seen);
      }
  }
  Problem blocked = p;
  blocked.options.mask.kind = MaskKind::Custom;
  blocked.options.mask.blocked = BlockGrid::Zero(p.Q.rows(), p.K.rows());
  blocked.options.mask.blocked.row(2).setOnes();
  const OnlineSoftmaxLesson l = online_softmax_lesson(blocked, 4, compute_cpu(blocked).output);
  EXPECT_TRUE(l.output.allFinite());
  EXPECT_EQ(l.output.row(2).cwiseAbs().maxCoeff(), 0.0f);
  expect_matches_reference(blocked, l, 4);
}

TEST(OnlineSoftmaxLesson, RefusesWhatTheOnlineSoftmaxDoesNotCompute) {
  Problem p = load_preset("online-softmax").problem();
  const Matrix out = compute_cpu(p).output;
  Problem sparse = p;
  sparse.options.normalizer = Normalizer::Sparsemax;
  EXPECT_THROW(online_softmax_lesson(sparse, 4, out), InputError);
  EXPECT_THROW(online_softmax_lesson(p, 0, out), InputError);
  EXPECT_THROW(online_softmax_lesson(p, 4, Matrix::Zero(2, 2)), InputError);
  Problem huge = p;
  huge.Q(1, 0) = 3e38f;
  huge.K(0, 0) = 3e38f;
  try {
    online_softmax_lesson(huge, 4, out);
    ADD_FAILURE() << "an overflowed score was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
}

TEST(OnlineSoftmaxLesson, JsonHasTheFieldsTheCommandLinePromises) {
  const Problem p = load_preset("online-softmax").problem();
  const auto j = online_softmax_json(online_softmax_lesson(p, 4, compute_cpu(p).output));
  for (const char* key : {"tile", "steps", "dense_output", "max_difference", "online_output", "scores_held", "dense_scores"})
    EXPECT_TRUE(j.contains(key)) << key;
  ASSERT_EQ(j["steps"].size(), 3u);
  EXPECT_EQ(j["steps"][1]["keys"].dump(), "[4,7]");
  const auto& row = j["steps"][0]["rows"][0];
  for (const char* key : {"running_max", "running_sum", "output", "rescale"}) EXPECT_TRUE(row.contains(key)) << key;
  EXPECT_TRUE(row["rescale"].is_null()) << "the first tile has nothing to rescale";
}

}  // namespace
}  // namespace attnlab
