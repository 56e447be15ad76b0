// Every built-in lesson loads, computes, and shows its point with the course texts' numbers.
#include "engine/attention/explain.hpp"
#include "engine/lessons/cost.hpp"
#include "engine/lessons/geometry.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/mask_family.hpp"
#include "engine/lessons/lesson_report.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/cpu/dense.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

Result compute(const Scenario& s) { return compute_cpu(s.problem()); }

void expect_row(const Matrix& M, Eigen::Index i, std::vector<double> expected, double tol) {
  ASSERT_EQ(M.cols(), static_cast<Eigen::Index>(expected.size()));
  for (Eigen::Index j = 0; j < M.cols(); ++j) EXPECT_NEAR(M(i, j), expected[static_cast<size_t>(j)], tol) << "row " << i << " col " << j;
}

TEST(LessonPresets, EveryPresetLoadsComputesAndReports) {
  const auto presets = list_presets();
  ASSERT_GE(presets.size(), 14u);
  for (const auto& p : presets) {
    SCOPED_TRACE(p.name);
    const Scenario s = load_preset(p.name);
    EXPECT_FALSE(s.title.empty());
    EXPECT_FALSE(s.description.empty()) << "older builds show the description: a one-line summary";
    EXPECT_TRUE(s.lesson.text.present()) << "a lesson says its goal, what to look at and what to try";
    if (!s.lesson.view_name.empty()) {
      EXPECT_EQ(lesson_view(s.lesson), s.lesson.view_name) << "a view this build does not know";
    }
    const Result r = compute(s);
    EXPECT_TRUE(r.weights.allFinite());
    const auto report = lesson_report(p.name, s);
    EXPECT_EQ(report.at("view"), std::string(lesson_view(s.lesson)));
  }
}

TEST(LessonPresets, CurriculumOrder) {
  const std::vector<std::string> expected{"three-tokens", "three-tokens-basis", "scaled-vs-unscaled", "dk-sweep",
                                          "causal-six",   "multi-head",         "shared-heads",       "gqa",
                                          "self-vs-cross", "mask-family",       "temperature",        "normalizers",
                                          "precision",    "geometry",           "cost",               "online-softmax",
                                          "rope"};
  const auto presets = list_presets();
  ASSERT_GE(presets.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(presets[i].name, expected[i]);
}

TEST(LessonPresets, Seed000ThreeTokens) {
  const Scenario s = load_preset("three-tokens");
  const Result r = compute(s);
  expect_row(r.weights, 0, {0.401, 0.198, 0.401}, 5e-4);
  expect_row(r.weights, 1, {0.198, 0.401, 0.401}, 5e-4);
  // The book prints (0.276 0.276 0.448); exp(0.707, 0.707, 1.414) normalizes to this.
  expect_row(r.weights, 2, {0.248, 0.248, 0.503}, 5e-4);
  expect_row(r.output, 0, {6.02, 3.98}, 5e-3);
  expect_row(r.output, 1, {3.98, 6.02}, 5e-3);  // the book's (1.98 6.02) leaves out 0.401·(5, 5)
  expect_row(r.output, 2, {5.00, 5.00}, 5e-3);
  Problem unscaled = s.problem();
  unscaled.options.scale = false;
  expect_row(compute_cpu(unscaled).weights, 2, {0.21, 0.21, 0.58}, 5e-3);
}

TEST(LessonPresets, Seed004WorkedExampleArithmetic) {
  const Scenario s = load_preset("three-tokens-basis");
  const Result r = compute(s);
  expect_row(r.weights, 0, {0.4011, 0.1978, 0.4011}, 1e-4);
  expect_row(r.weights, 1, {0.1978, 0.4011, 0.4011}, 1e-4);
  expect_row(r.weights, 2, {0.2483, 0.2483, 0.5034}, 1e-4);  // 0.50349: the course text cuts, not rounds
  expect_row(r.output, 0, {0.4011, 0.1978}, 1e-4);
  expect_row(r.output, 2, {0.2483, 0.2483}, 1e-4);
  // "Explain a cell" in the course text's own digits.
  const auto row1 = explain_weight(s.problem(), r, 0, 0);
  ASSERT_EQ(row1.size(), 4u);
  EXPECT_EQ(row1[0], "scores[1][1] = q1 · k1 = 1·1 + 0·0 = 1");
  EXPECT_EQ(row1[1], "logits[1][1] = 1 / √2 = 1 / 1.4142 = 0.7071");
  EXPECT_EQ(row1[2], "exp of row 1: (2.0281, 1, 2.0281), sum = 5.0562");
  EXPECT_EQ(row1[3], "weights[1][1] = 2.0281 / 5.0562 = 0.4011");
  const auto row3 = explain_weight(s.problem(), r, 2, 2);
  EXPECT_EQ(row3[2], "exp of row 3: (2.0281, 2.0281, 4.1133), sum = 8.1695");
  EXPECT_EQ(explain_output(s.problem(), r, 0)[0], "output[1] = 0.4011·(1, 0) + 0.1978·(0, 1) + 0.4011·(0, 0) = (0.4011, 0.1978)");
}

TEST(LessonPresets, ScaledVsUnscaledColumns) {
  const auto report = lesson_report("scaled-vs-unscaled", load_preset("scaled-vs-unscaled"));
  const auto& scaled = report.at("scaled").at("weights");
  const auto& unscaled = report.at("unscaled").at("weights");
  EXPECT_NEAR(scaled[2][2].get<double>(), 0.503, 5e-4);
  EXPECT_NEAR(unscaled[2][2].get<double>(), 0.576, 5e-4);
  EXPECT_NEAR(unscaled[2][0].get<double>(), 0.212, 5e-4);
  EXPECT_NEAR(report.at("scaled").at("effective_temperature").get<double>(), std::sqrt(2.0), 1e-9);
}

TEST(LessonPresets, Exercise231DkSweep) {
  const Scenario s = load_preset("dk-sweep");
  EXPECT_EQ(s.Q.cols(), 64);
  EXPECT_EQ(s.K.rows(), 10);
  const auto report = lesson_report("dk-sweep", s);
  const auto& draw = report.at("this_draw");
  EXPECT_NEAR(draw.at("unscaled").at("logits_std").get<double>(), 7.87, 0.01);
  EXPECT_GT(draw.at("unscaled").at("max_prob").get<double>(), 0.99);
  EXPECT_NEAR(draw.at("scaled").at("logits_std").get<double>(), 7.87 / 8, 0.01);
  EXPECT_LT(draw.at("scaled").at("max_prob").get<double>(), 0.4);
  for (const auto& row : report.at("sweep")) {
    const double dk = row.at("d_k").get<double>();
    SCOPED_TRACE(dk);
    EXPECT_NEAR(row.at("unscaled_std").get<double>() / std::sqrt(dk), 1.0, 0.15);
    EXPECT_NEAR(row.at("scaled_std").get<double>(), 1.0, 0.15);
    EXPECT_LT(row.at("scaled_max_prob").get<double>(), 0.4);
    if (dk >= 512) {
      EXPECT_GT(row.at("unscaled_max_prob").get<double>(), 0.9);
    }
  }
}

TEST(LessonPresets, Exercise232CausalSix) {
  const Scenario s = load_preset("causal-six");
  const Result r = compute(s);
  ASSERT_EQ(r.n, 6);
  for (Eigen::Index i = 0; i < 6; ++i) {
    EXPECT_NEAR(r.weights.row(i).cast<double>().sum(), 1.0, 1e-6);
    for (Eigen::Index j = i + 1; j < 6; ++j) EXPECT_EQ(r.weights(i, j), 0.0f) << i << "," << j;
  }
  EXPECT_EQ(r.weights(0, 0), 1.0f);
}

TEST(LessonPresets, SelfVsCrossShapes) {
  const auto report = lesson_report("self-vs-cross", load_preset("self-vs-cross"));
  EXPECT_EQ(report.at("cross").at("shape"), nlohmann::ordered_json({3, 5}));
  EXPECT_EQ(report.at("self").at("shape"), nlohmann::ordered_json({5, 5}));
  EXPECT_FALSE(report.at("cross").at("square").get<bool>());
  EXPECT_TRUE(report.at("self").at("square").get<bool>());
  // "chat" attends most to "cat", "noir" to "black".
  const auto& w = report.at("cross").at("weights");
  auto argmax = [](const nlohmann::ordered_json& row) {
    size_t best = 0;
    for (size_t j = 1; j < row.size(); ++j) if (row[j].get<double>() > row[best].get<double>()) best = j;
    return best;
  };
  EXPECT_EQ(argmax(w[0]), 0u);
  EXPECT_EQ(argmax(w[1]), 2u);
  EXPECT_EQ(argmax(w[2]), 1u);
}

TEST(LessonPresets, MaskFamilyRowsSumToOneAndBlockedCellsAreZero) {
  const Scenario s = load_preset("mask-family");
  const std::vector<std::string> masks = mask_family_params(LessonFields(s.lesson)).masks;
  ASSERT_EQ(masks.size(), 5u);
  for (const auto& spec : masks) {
    SCOPED_TRACE(spec);
    Problem p = s.problem();
    p.options.mask = parse_mask_spec(spec);
    const Result r = compute_cpu(p);
    for (Eigen::Index i = 0; i < r.n; ++i) {
      EXPECT_NEAR(r.weights.row(i).cast<double>().sum(), 1.0, 1e-6);
      for (Eigen::Index j = 0; j < r.m; ++j) {
        if (p.options.mask.is_blocked(i, j)) {
          EXPECT_EQ(r.weights(i, j), 0.0f);
        } else {
          EXPECT_GT(r.weights(i, j), 0.0f);
        }
      }
      EXPECT_EQ(r.rows[static_cast<size_t>(i)].padding, spec == "padding:3" && i >= 3);
    }
  }
}

TEST(LessonPresets, TemperatureLimits) {
  const Scenario s = load_preset("temperature");
  const auto report = lesson_report("temperature", s);
  const auto& frames = report.at("frames");
  ASSERT_EQ(frames.size(), 41u);
  EXPECT_LT(frames.front().at("distance_to_one_hot").get<double>(), 1e-3);
  EXPECT_LT(frames.back().at("distance_to_uniform").get<double>(), 0.01);
  for (size_t k = 1; k < frames.size(); ++k) {
    EXPECT_LE(frames[k].at("mean_max_weight").get<double>(), frames[k - 1].at("mean_max_weight").get<double>() + 1e-7);
    EXPECT_GE(frames[k].at("mean_entropy").get<double>(), frames[k - 1].at("mean_entropy").get<double>() - 1e-6);
  }
  EXPECT_NEAR(frames.back().at("mean_entropy").get<double>(), std::log(5.0), 1e-3);
}

TEST(LessonPresets, NormalizersSeed002Table) {
  const auto report = lesson_report("normalizers", load_preset("normalizers"));
  const auto& n = report.at("normalizers");
  auto row = [&](const char* name, size_t i) { return n.at(name).at("weights")[i]; };
  // Row 1: the course text's softmax example; row 2: the course text's sparsemax example.
  const std::vector<double> seed_softmax{0.52, 0.27, 0.15, 0.06};
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(row("softmax", 0)[j].get<double>(), seed_softmax[j], 1e-6);
  const std::vector<double> seed_sparsemax{0.6, 0.4, 0.0, 0.0};
  for (size_t j = 0; j < 4; ++j) EXPECT_NEAR(row("sparsemax", 1)[j].get<double>(), seed_sparsemax[j], 1e-6);
  EXPECT_EQ(row("sparsemax", 1)[2].get<double>(), 0.0);
  EXPECT_EQ(row("sparsemax", 0)[3].get<double>(), 0.0);
  for (const char* name : {"softmax", "sparsemax", "hardmax"}) {
    for (const auto& sum : n.at(name).at("row_sums")) EXPECT_NEAR(sum.get<double>(), 1.0, 1e-6) << name;
  }
  EXPECT_GT(n.at("sparsemax").at("exact_zeros").get<int>(), 0);
  EXPECT_EQ(n.at("softmax").at("exact_zeros").get<int>(), 0);
  EXPECT_NEAR(n.at("sigmoid").at("row_sums")[0].get<double>(), 0.7417, 1e-4);  // need not sum to 1
  EXPECT_EQ(row("hardmax", 0), nlohmann::ordered_json({1.0, 0.0, 0.0, 0.0}));
}

TEST(LessonPresets, GeometryOutputsInsideTheHull) {
  const Scenario s = load_preset("geometry");
  const auto g = geometry_view(s.problem(), compute(s));
  ASSERT_EQ(g.hull.size(), 3u);
  for (const bool b : g.inside) EXPECT_TRUE(b);
  EXPECT_NEAR(g.outputs[0][0], 0.4011, 1e-4);
}

TEST(LessonPresets, CostTableMatchesSeeds003And004) {
  const auto rows = cost_table({1024, 8192, 32768, 100000}, 64);
  EXPECT_EQ(rows[0].entries, 1048576.0);  // "Query, Key, Value": 1,048,576 scores per head
  EXPECT_EQ(rows[1].entries, 67108864.0);  // "13.2 Scaled dot-product attention": 67 million
  EXPECT_GT(rows[2].entries, 1e9);         // over a billion
  EXPECT_EQ(rows[3].entries, 1e10);        // ten billion
  EXPECT_EQ(rows[3].bytes_fp16, 2e10);     // roughly 20 GB per head in fp16
  EXPECT_EQ(rows[3].bytes_fp32, 4e10);
  EXPECT_TRUE(rows[0].fits_dense);
}

}  // namespace
}  // namespace attnlab
