// The scenario's "lesson" object: read tolerantly, written back unchanged, never changing numbers;
// its fields read by their lessons' pages.
#include "engine/io/lesson_spec.hpp"
#include "engine/lessons/geometry.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/multi_head.hpp"
#include "engine/lessons/online_softmax.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/lessons/self_cross.hpp"
#include "engine/lessons/temperature.hpp"
#include "engine/io/scenario.hpp"
#include "engine/cpu/dense.hpp"

#include <gtest/gtest.h>

namespace attnlab {
namespace {

const char* kPlain = R"({"format": "attnlab-scenario", "version": 1, "Q": [[1, 0], [0, 1]], "K": [[1, 2], [0, 1]],
  "V": [[1, 0], [0, 1]]})";

std::string with_lesson(const std::string& lesson) {
  std::string s = kPlain;
  s.insert(s.size() - 1, ", \"lesson\": " + lesson);
  return s;
}

// A scenario file read as the app and the command line open one: its lesson's fields checked.
Scenario read(const std::string& text, const std::string& source) {
  Scenario s = parse_scenario(text, source);
  check_lesson_fields(s.lesson);
  return s;
}

TEST(LessonSpec, ReadsKnownFields) {
  const Scenario s = read(with_lesson(R"({"view": "multi-head", "heads": 2, "seed": 9, "share_projections": true})"), "t");
  EXPECT_EQ(lesson_view(s.lesson), kMultiHeadView);
  const MultiHeadParams l = multi_head_params(LessonFields(s.lesson));
  EXPECT_EQ(l.heads, 2);
  EXPECT_EQ(l.seed, 9u);
  EXPECT_TRUE(l.share_projections);
}

TEST(LessonSpec, UnknownViewsAndFieldsAreIgnoredAndNeverChangeNumbers) {
  const Scenario plain = parse_scenario(kPlain, "t");
  const Scenario future = read(with_lesson(R"({"view": "hologram", "sparkle": 3})"), "t");
  EXPECT_EQ(lesson_view(future.lesson), kPlainView);
  EXPECT_EQ(future.lesson.view_name, "hologram");
  EXPECT_EQ(compute_cpu(plain.problem()).weights, compute_cpu(future.problem()).weights);
  EXPECT_TRUE(plain.lesson.raw_json.empty());
}

TEST(LessonSpec, BadKnownFieldsAreInputErrors) {
  EXPECT_THROW(read(with_lesson(R"({"view": 3})"), "t"), InputError);
  EXPECT_THROW(read(with_lesson(R"({"heads": 0})"), "t"), InputError);
  EXPECT_THROW(read(with_lesson(R"({"dk": [8, "x"]})"), "t"), InputError);
  EXPECT_THROW(read(with_lesson(R"({"tau_min": 2, "tau_max": 1})"), "t"), InputError);
  EXPECT_THROW(read(with_lesson(R"("multi-head")"), "t"), InputError);
  try {
    read(with_lesson(R"({"heads": 0})"), "lesson.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("lesson.json: lesson.heads"), std::string::npos) << e.what();
  }
}

TEST(LessonSpec, SaveWritesTheLessonBackUnchanged) {
  for (const auto& p : list_presets()) {
    SCOPED_TRACE(p.name);
    const Scenario s = load_preset(p.name);
    const Scenario back = parse_scenario(scenario_to_json(s), "round trip");
    EXPECT_EQ(back.lesson.raw_json, s.lesson.raw_json);
    EXPECT_EQ(back.lesson.view_name, s.lesson.view_name);
    EXPECT_EQ(back.Q, s.Q);
    EXPECT_EQ(back.description, s.description);
  }
  EXPECT_EQ(scenario_to_json(parse_scenario(kPlain, "t")).find("lesson"), std::string::npos);
}

// The online-softmax lesson's tile width (4 keys unless the file says), refused below 1.
TEST(LessonSpec, OnlineSoftmaxTile) {
  const Scenario s = read(with_lesson(R"({"view": "online-softmax", "tile": 3})"), "t");
  EXPECT_EQ(lesson_view(s.lesson), kOnlineSoftmaxView);
  EXPECT_EQ(online_softmax_params(LessonFields(s.lesson)).tile, 3);
  EXPECT_EQ(online_softmax_params(LessonFields(read(with_lesson(R"({"view": "online-softmax"})"), "t").lesson)).tile, 4);
  EXPECT_THROW(read(with_lesson(R"({"tile": 0})"), "t"), InputError);
  EXPECT_THROW(read(with_lesson(R"({"tile": "wide"})"), "t"), InputError);
}

// A numbered section is "Section 2.3"; one known by its heading is quoted after the title.
TEST(LessonSpec, SourceLineNamesNumberedAndHeadedSections) {
  EXPECT_EQ(source_line({"QKV, Scaled Dot-Product & Causal Masking", "2.3", "2.3.1"}),
            "\"QKV, Scaled Dot-Product & Causal Masking\", Section 2.3, Exercise 2.3.1");
  EXPECT_EQ(source_line({"13.2 Scaled dot-product attention", "Computational cost", ""}),
            "\"13.2 Scaled dot-product attention\", section \"Computational cost\"");
}

TEST(LessonSpec, EveryViewHasAName) {
  for (const LessonPage& p : lesson_pages()) EXPECT_EQ(&find_lesson_page(p.view), &p);
}

TEST(LessonMath, ConvexHull) {
  const auto hull = convex_hull({{0, 0}, {1, 0}, {1, 1}, {0, 1}, {0.5, 0.5}, {1, 0}});
  EXPECT_EQ(hull.size(), 4u);
  EXPECT_TRUE(inside_convex_hull({0.5, 0.5}, hull));
  EXPECT_TRUE(inside_convex_hull({1, 0.5}, hull));
  EXPECT_FALSE(inside_convex_hull({1.1, 0.5}, hull));
  EXPECT_TRUE(inside_convex_hull({0.5, 0.5}, convex_hull({{0, 0}, {1, 1}})));
  EXPECT_FALSE(inside_convex_hull({0.5, 0.6}, convex_hull({{0, 0}, {1, 1}})));
}

TEST(LessonMath, OutputsStayInsideTheHullOfRandomValues) {
  Problem p;
  p.Q = Matrix::Random(20, 2) * 4;
  p.K = Matrix::Random(7, 2) * 4;
  p.V = Matrix::Random(7, 2) * 3;
  const auto g = geometry_view(p, compute_cpu(p));
  for (const bool b : g.inside) EXPECT_TRUE(b);
  p.V = Matrix::Random(7, 3);
  EXPECT_THROW(geometry_view(p, compute_cpu(p)), InputError);
}

TEST(LessonMath, LogSpacedTemperatures) {
  const auto t = log_spaced(0.01, 100, 5);
  ASSERT_EQ(t.size(), 5u);
  EXPECT_DOUBLE_EQ(t.front(), 0.01);
  EXPECT_NEAR(t[2], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(t.back(), 100);
}

TEST(LessonMath, SelfAttentionTwinIsSquare) {
  const Scenario cross = load_preset("self-vs-cross");
  const Scenario self = self_attention_twin(cross);
  EXPECT_EQ(self.Q, cross.K);
  EXPECT_EQ(compute_cpu(self.problem()).weights.rows(), cross.K.rows());
}

}  // namespace
}  // namespace attnlab
