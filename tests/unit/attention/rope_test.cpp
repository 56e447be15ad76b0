// Rotary positions (engine/attention/rope.hpp): the properties that make RoPE a relative position
// code, the scalings against their published formulas written out here, and the parser's
// sentences.
#include "engine/attention/rope.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <numbers>
#include <random>

namespace attnlab {
namespace {

constexpr double kEps32 = 1.0 / (1 << 24);

Matrix random_rows(std::int64_t rows, std::int64_t d, std::uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix m(rows, d);
  for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(gen);
  return m;
}

double dot(const Matrix& a, const Matrix& b) {
  double s = 0;
  for (Eigen::Index i = 0; i < a.cols(); ++i) s += static_cast<double>(a(0, i)) * b(0, i);
  return s;
}

using test::error_of;

RopeScaling llama31() {
  return parse_rope_scaling(R"({"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
                                "original_max_position_embeddings": 8192})",
                            "test");
}

// q̃(p)·k̃(r) depends on p − r only: moving both positions by the same amount keeps every product,
// for plain, linear and llama3 frequencies and for positions far past the trained context. The
// bound: each rotated element carries a few float roundings of the row's size, so the product of d
// terms moves by at most about d·2⁻²⁴·‖q‖·‖k‖ (8× that here); a rotation that did not depend on
// the difference alone moves it by the order of ‖q‖·‖k‖.
TEST(Rope, ProductsDependOnlyOnTheDistance) {
  const std::int64_t d = 64;
  const Matrix q = random_rows(1, d, 1), k = random_rows(1, d, 2);
  const double bound = 8 * d * kEps32 * q.norm() * k.norm();
  for (const RopeScaling& scaling : {RopeScaling{}, parse_rope_scaling(R"({"type": "linear", "factor": 4})", "test"), llama31()}) {
    const auto f = rope_frequencies(500000, scaling, d);
    for (const auto& [p, r] : {std::pair<std::int64_t, std::int64_t>{7, 3}, {3, 7}, {0, 0}, {100, 1}}) {
      const double base = dot(rope_rotated(q, {p}, f), rope_rotated(k, {r}, f));
      for (std::int64_t shift : {1, 13, 1000, 20000}) {
        const double moved = dot(rope_rotated(q, {p + shift}, f), rope_rotated(k, {r + shift}, f));
        EXPECT_NEAR(moved, base, bound) << "p " << p << ", r " << r << ", shift " << shift;
      }
    }
    // And it does depend on the distance: the products at distance 4 and 5 differ.
    EXPECT_GT(std::abs(dot(rope_rotated(q, {9}, f), rope_rotated(k, {5}, f)) - dot(rope_rotated(q, {10}, f), rope_rotated(k, {5}, f))),
              100 * bound);
  }
}

// Position 0 is no rotation at any θ; as θ → ∞ every pair's frequency θ^(−2i/d) goes to 0 except
// the first's, which is θ⁰ = 1 for every θ: that pair still turns by p radians, the rest not at all.
TEST(Rope, PositionZeroAndInfiniteThetaLeaveRowsAlone) {
  const std::int64_t d = 16;
  const Matrix x = random_rows(3, d, 3);
  EXPECT_EQ(rope_rotated(x.topRows(1), {0}, rope_frequencies(10000, {}, d)), x.topRows(1));
  const auto f = rope_frequencies(1e300, {}, d);
  EXPECT_EQ(f[0], 1.0);
  const std::vector<std::int64_t> pos = {5, 17, 4000};
  const Matrix y = rope_rotated(x, pos, f);
  for (Eigen::Index r = 0; r < x.rows(); ++r) {
    const double a = static_cast<double>(pos[static_cast<std::size_t>(r)]);
    EXPECT_NEAR(y(r, 0), x(r, 0) * std::cos(a) - x(r, d / 2) * std::sin(a), 4 * kEps32 * (std::abs(x(r, 0)) + std::abs(x(r, d / 2))));
    EXPECT_NEAR(y(r, d / 2), x(r, d / 2) * std::cos(a) + x(r, 0) * std::sin(a), 4 * kEps32 * (std::abs(x(r, 0)) + std::abs(x(r, d / 2))));
    for (Eigen::Index i = 1; i < d / 2; ++i) {
      EXPECT_EQ(y(r, i), x(r, i));
      EXPECT_EQ(y(r, i + d / 2), x(r, i + d / 2));
    }
  }
}

// The rotation pairs element i with element i + d/2 (the halves), as docs/MODELS.md ("Rotary positions") writes it.
TEST(Rope, RotatesTheTwoHalvesOfARow) {
  const std::int64_t d = 8;
  const Matrix x = random_rows(1, d, 4);
  const auto f = rope_frequencies(100, {}, d);
  const Matrix y = rope_rotated(x, {3}, f);
  for (std::int64_t i = 0; i < d / 2; ++i) {
    const double a = 3 * std::pow(100.0, -2.0 * static_cast<double>(i) / d);
    const double lo = x(0, i) * std::cos(a) - x(0, i + d / 2) * std::sin(a), hi = x(0, i + d / 2) * std::cos(a) + x(0, i) * std::sin(a);
    EXPECT_NEAR(y(0, i), lo, 4 * kEps32 * (std::abs(lo) + 1));
    EXPECT_NEAR(y(0, i + d / 2), hi, 4 * kEps32 * (std::abs(hi) + 1));
  }
  // Rotations keep lengths.
  EXPECT_NEAR(y.norm(), x.norm(), 8 * kEps32 * x.norm());
}

// Llama 3.1's published rope_scaling (factor 8, low 1, high 4, trained on 8192 positions) at
// θ = 500000 and d = 128, against the rule written out again here in long double: wavelengths
// 2π/f below 8192/4 = 2048 positions keep f, those above 8192/1 are divided by 8, and in between
// f·((1 − s)/8 + s) with s = (8192/wavelength − 1)/(4 − 1).
TEST(Rope, Llama3ScalingFollowsItsFormula) {
  const std::int64_t d = 128;
  const auto plain = rope_frequencies(500000, {}, d), scaled = rope_frequencies(500000, llama31(), d);
  int kept = 0, divided = 0, blended = 0;
  for (std::int64_t i = 0; i < d / 2; ++i) {
    const long double f = std::pow(500000.0L, -2.0L * i / d);
    const long double wave = 2 * std::numbers::pi_v<long double> / f;
    long double want;
    if (wave < 2048) {
      want = f;
      ++kept;
    } else if (wave > 8192) {
      want = f / 8;
      ++divided;
    } else {
      const long double s = (8192 / wave - 1) / 3;
      want = (1 - s) * f / 8 + s * f;
      ++blended;
    }
    EXPECT_NEAR(scaled[static_cast<std::size_t>(i)], static_cast<double>(want), 1e-14 * static_cast<double>(f)) << "i " << i;
    EXPECT_NEAR(plain[static_cast<std::size_t>(i)], static_cast<double>(f), 1e-14 * static_cast<double>(f)) << "i " << i;
  }
  EXPECT_GT(kept, 0);  // every branch of the rule is exercised
  EXPECT_GT(divided, 0);
  EXPECT_GT(blended, 0);
  const auto linear = rope_frequencies(10000, parse_rope_scaling(R"({"rope_type": "linear", "factor": 2.5})", "test"), 16);
  const auto base = rope_frequencies(10000, {}, 16);
  for (std::size_t i = 0; i < base.size(); ++i) EXPECT_DOUBLE_EQ(linear[i], base[i] / 2.5);
}

TEST(Rope, ScalingParseAcceptsHuggingFacesSpellings) {
  EXPECT_EQ(parse_rope_scaling("null", "t").type, RopeScalingType::None);
  EXPECT_EQ(parse_rope_scaling(R"({"rope_type": "default"})", "t").type, RopeScalingType::None);
  const RopeScaling old = parse_rope_scaling(R"({"type": "linear", "factor": 2.0})", "t");
  EXPECT_EQ(old.type, RopeScalingType::Linear);
  EXPECT_EQ(old.factor, 2.0);
  EXPECT_EQ(llama31().original_max_position_embeddings, 8192);
  EXPECT_NE(llama31().json.find("\"llama3\""), std::string::npos);  // kept verbatim for printing
}

TEST(Rope, ScalingParseRefusesWithASentence) {
  const auto err = [](const char* json) { return error_of([&] { parse_rope_scaling(json, "config.json: \"rope_scaling\""); }); };
  EXPECT_NE(err(R"({"rope_type": "yarn", "factor": 4})").find("rope_type \"yarn\" is not one Attention Lab applies (linear, llama3)"),
            std::string::npos);
  EXPECT_NE(err(R"({"type": "linear", "factor": 0})").find("\"factor\" must be a positive number"), std::string::npos);
  EXPECT_NE(err(R"({"type": "linear", "factor": "2"})").find("\"factor\" must be a positive number"), std::string::npos);
  EXPECT_NE(err(R"({"type": "linear"})").find("\"factor\" is missing"), std::string::npos);
  EXPECT_NE(err(R"({"factor": 2})").find("needs \"rope_type\""), std::string::npos);
  EXPECT_NE(err(R"([1])").find("null or an object"), std::string::npos);
  EXPECT_NE(err(R"({"rope_type": "llama3", "factor": 8, "low_freq_factor": 4, "high_freq_factor": 4,
                    "original_max_position_embeddings": 8192})")
                .find("\"high_freq_factor\" 4 must be above \"low_freq_factor\" 4"),
            std::string::npos);
  EXPECT_NE(err(R"({"rope_type": "llama3", "factor": 8})").find("\"low_freq_factor\" is missing"), std::string::npos);
  EXPECT_EQ(err("{oops").rfind("config.json: \"rope_scaling\": not JSON", 0), 0u);
  EXPECT_NE(error_of([] { rope_frequencies(10000, {}, 7); }).find("even"), std::string::npos);
  EXPECT_NE(error_of([] { rope_frequencies(0, {}, 8); }).find("theta"), std::string::npos);
  // Frequencies past double's range, and finite ones whose angle at a position is not (the fuzzer's
  // find: θ = 1, a linear factor of 1e-308, position 3), are refused: the bound is DBL_MAX / 2^63,
  // about 1.9e289. Below it (θ = 1 makes every frequency 1 / factor) the angles at the farthest
  // positions an int64 holds stay finite.
  EXPECT_NE(error_of([] { rope_frequencies(1e-300, {}, 64); }).find("beyond any number"), std::string::npos);
  for (const double factor : {1e-308, 1e-290}) {
    EXPECT_NE(error_of([&] { rope_frequencies(1, {RopeScalingType::Linear, factor}, 8); }).find("beyond any number"), std::string::npos)
        << factor;
  }
  const std::vector<double> f = rope_frequencies(1, {RopeScalingType::Linear, 1e-289}, 8);
  const std::int64_t far[] = {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()};
  const RopeAngles a = rope_angles(f, far, 2);
  for (std::size_t k = 0; k < a.cos.size(); ++k) EXPECT_TRUE(std::isfinite(a.cos[k]) && std::isfinite(a.sin[k])) << k;
}

TEST(Rope, TheScenarioObjectParsesAndPrintsBack) {
  const RopeSettings r = parse_rope_settings(
      R"({"theta": 500000, "scaling": {"rope_type": "linear", "factor": 2}, "query_positions": [4, 5], "key_positions": [0, 1, 2]})", "s");
  EXPECT_EQ(r.theta, 500000);
  EXPECT_EQ(r.scaling.type, RopeScalingType::Linear);
  EXPECT_EQ(r.query_positions, (std::vector<std::int64_t>{4, 5}));
  const RopeSettings again = parse_rope_settings(rope_settings_json(r), "s");
  EXPECT_EQ(again.theta, r.theta);
  EXPECT_EQ(again.scaling.factor, 2);
  EXPECT_EQ(again.key_positions, r.key_positions);
  EXPECT_EQ(rope_settings_json(parse_rope_settings("{}", "s")), R"({"theta": 10000.0, "scaling": null})");
  EXPECT_NE(error_of([] { parse_rope_settings(R"({"theta": -1})", "s"); }).find("theta"), std::string::npos);
  EXPECT_NE(error_of([] { parse_rope_settings(R"({"offset": 3})", "s"); }).find("unknown field \"offset\""), std::string::npos);
  EXPECT_NE(error_of([] { parse_rope_settings(R"({"query_positions": [0, -1]})", "s"); }).find("-1 is not a position"), std::string::npos);
}

}  // namespace
}  // namespace attnlab
