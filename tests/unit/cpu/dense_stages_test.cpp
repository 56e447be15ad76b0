// compute_cpu keeping only some n × m stages (DenseStages): the numbers kept, the output, rows and
// statistics are bit-for-bit those of the full computation, and the printed report derives the
// stages left out (logits, saturation) to the very same text.
#include "engine/attention/attention.hpp"
#include "engine/io/result_format.hpp"
#include "engine/io/scenario.hpp"
#include "engine/cpu/dense.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <sstream>

namespace attnlab {
namespace {

Scenario make_scenario(std::mt19937& rng, Eigen::Index n, Eigen::Index m, Eigen::Index dk, Eigen::Index dv, Mask mask,
                       Normalizer normalizer) {
  std::normal_distribution<float> dist(0.0f, 2.0f);
  Scenario s;
  s.title = "dense stages";
  s.Q.resize(n, dk);
  s.K.resize(m, dk);
  s.V.resize(m, dv);
  for (Matrix* M : {&s.Q, &s.K, &s.V}) {
    for (Eigen::Index i = 0; i < M->size(); ++i) M->data()[i] = dist(rng);
  }
  s.options.mask = std::move(mask);
  s.options.normalizer = normalizer;
  s.options.temperature = 0.7;
  return s;
}

bool same_bits(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

std::string json_of(const Scenario& s, const Result& r, bool summary) {
  std::ostringstream out;
  FormatOptions f;
  f.summary = summary;
  write_result_json(out, s, r, f);
  return out.str();
}

std::string text_of(const Scenario& s, const Result& r) {
  std::ostringstream out;
  write_result_text(out, s, r, FormatOptions{});
  return out.str();
}

TEST(DenseStages, LeavingStagesOutChangesNoNumber) {
  std::mt19937 rng(11);
  Mask causal;
  causal.kind = MaskKind::Causal;
  Mask window;
  window.kind = MaskKind::Window;
  window.param = 5;
  Mask custom;
  custom.kind = MaskKind::Custom;
  custom.blocked.setZero(300, 140);
  custom.blocked.row(3).setOnes();  // a fully masked row
  custom.blocked(7, 9) = 1;
  // Several 128-row strips (300 rows), one short strip, and a single row.
  const struct {
    Eigen::Index n, m;
    Mask mask;
    Normalizer normalizer;
  } cases[] = {{300, 140, causal, Normalizer::Softmax},   {300, 140, custom, Normalizer::Softmax},
               {130, 90, window, Normalizer::Sparsemax}, {1, 7, Mask{}, Normalizer::Sigmoid},
               {40, 33, Mask{}, Normalizer::Hardmax}};
  for (const auto& c : cases) {
    const Scenario s = make_scenario(rng, c.n, c.m, 6, 3, c.mask, c.normalizer);
    SCOPED_TRACE(std::to_string(c.n) + "×" + std::to_string(c.m) + " " + mask_spec(c.mask));
    const Result full = compute_cpu(s.problem());
    DenseStages printed;  // what `compute` keeps for the full report
    printed.logits = printed.saturation = false;
    const Result lean = compute_cpu(s.problem(), printed);
    const Result none = compute_cpu(s.problem(), DenseStages{false, false, false, false});
    EXPECT_EQ(lean.logits.size(), 0);
    EXPECT_EQ(none.scores.size(), 0);
    EXPECT_EQ(none.weights.size(), 0);
    EXPECT_TRUE(same_bits(lean.scores, full.scores));
    EXPECT_TRUE(same_bits(lean.weights, full.weights));
    for (const Result* r : {&lean, &none}) {
      EXPECT_TRUE(same_bits(r->output, full.output));
      ASSERT_EQ(r->rows.size(), full.rows.size());
      for (size_t i = 0; i < full.rows.size(); ++i) {
        EXPECT_EQ(std::memcmp(&r->rows[i].max_weight, &full.rows[i].max_weight, 4 * sizeof(float)), 0) << "row " << i;
        EXPECT_EQ(r->rows[i].fully_masked, full.rows[i].fully_masked);
      }
      EXPECT_EQ(r->stats.scores.mean, full.stats.scores.mean);
      EXPECT_EQ(r->stats.scores.std, full.stats.scores.std);
      EXPECT_EQ(r->stats.logits.mean, full.stats.logits.mean);
      EXPECT_EQ(r->stats.logits.std, full.stats.logits.std);
      EXPECT_EQ(r->stats.logits.count, full.stats.logits.count);
    }
    // The printed report: logits and saturation derived cell by cell print the same text.
    EXPECT_EQ(json_of(s, lean, false), json_of(s, full, false));
    EXPECT_EQ(json_of(s, none, true), json_of(s, full, true));
    EXPECT_EQ(text_of(s, lean), text_of(s, full));
    for (Eigen::Index i = 0; i < full.n; ++i) {
      for (Eigen::Index j = 0; j < full.m; ++j) {
        const float l = logit_of(full.scores(i, j), s.options.mask.is_blocked(i, j), full.effective_temperature);
        ASSERT_EQ(std::memcmp(&l, &full.logits(i, j), sizeof l), 0) << i << "," << j;
        const float a = saturation_of(full.weights(i, j));
        ASSERT_EQ(std::memcmp(&a, &full.saturation(i, j), sizeof a), 0) << i << "," << j;
      }
    }
  }
}

}  // namespace
}  // namespace attnlab
