// Scenario files: exact save/load round trips and one-sentence errors naming file and field.
#include "engine/lessons/presets.hpp"
#include "engine/io/scenario.hpp"
#include "engine/text/text_format.hpp"
#include "support/files.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

bool bit_identical(const Matrix& a, const Matrix& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.size()) * sizeof(float)) == 0;
}

class TempDir : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fresh_test_dir("attnlab-scenario-test");
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

using ScenarioFiles = TempDir;

Matrix awkward_matrix(std::mt19937& rng, Eigen::Index rows, Eigen::Index cols) {
  // Random bit patterns cover every float; add the classic hard cases for shortest printing.
  std::uniform_int_distribution<std::uint32_t> bits;
  const float special[] = {0.1f, 1.0f / 3, 1e-45f, -1e-45f, std::numeric_limits<float>::min(),
                           std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(),
                           16777217.0f, 1e30f, -0.0f, 0.0f, 3.4028235e38f, 1.17549435e-38f, 123456789.0f};
  Matrix M(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j) {
      float v;
      do {
        const std::uint32_t b = bits(rng);
        std::memcpy(&v, &b, 4);
      } while (!std::isfinite(v));
      if ((i + j) % 3 == 0) v = special[static_cast<size_t>(i * cols + j) % std::size(special)];
      M(i, j) = v;
    }
  }
  return M;
}

TEST_F(ScenarioFiles, SaveLoadRoundTripIsBitIdentical) {
  std::mt19937 rng(99);
  int index = 0;
  for (MaskKind kind : test::all_mask_kinds()) {
    for (Normalizer norm : test::all_normalizers()) {
      Scenario s;
      const Eigen::Index n = test::uniform_int(rng, 1, 6), m = test::uniform_int(rng, 1, 6);
      const Eigen::Index dk = test::uniform_int(rng, 1, 5), dv = test::uniform_int(rng, 1, 5);
      s.title = "Round trip \"" + std::to_string(index) + "\" — ünïcødé, tab\t, newline\n, back\\slash";
      s.description = index % 2 ? "" : "a description with \x01 control";
      s.Q = awkward_matrix(rng, n, dk);
      s.K = awkward_matrix(rng, m, dk);
      s.V = awkward_matrix(rng, m, dv);
      if (index % 3 != 0) {
        for (Eigen::Index i = 0; i < n; ++i) s.query_tokens.push_back("q" + std::to_string(i) + (i == 0 ? "\"é\"" : ""));
        for (Eigen::Index j = 0; j < m; ++j) s.key_tokens.push_back("k" + std::to_string(j));
      }
      s.options.scale = index % 2 == 0;
      s.options.temperature = std::uniform_real_distribution<double>(1e-3, 1e3)(rng);
      s.options.mask = test::random_mask(rng, kind, n, m);
      s.options.normalizer = norm;
      const fs::path file = dir_ / ("s" + std::to_string(index++) + ".json");
      save_scenario(s, file);
      const Scenario back = load_scenario(file);
      SCOPED_TRACE(file.string());
      EXPECT_TRUE(bit_identical(s.Q, back.Q));
      EXPECT_TRUE(bit_identical(s.K, back.K));
      EXPECT_TRUE(bit_identical(s.V, back.V));
      EXPECT_EQ(s.title, back.title);
      EXPECT_EQ(s.description, back.description);
      EXPECT_EQ(s.query_tokens, back.query_tokens);
      EXPECT_EQ(s.key_tokens, back.key_tokens);
      EXPECT_EQ(s.options.scale, back.options.scale);
      EXPECT_EQ(std::memcmp(&s.options.temperature, &back.options.temperature, sizeof(double)), 0);
      EXPECT_EQ(s.options.mask, back.options.mask);
      EXPECT_EQ(s.options.normalizer, back.options.normalizer);
      // Saving again gives the same bytes.
      EXPECT_EQ(scenario_to_json(back), scenario_to_json(s));
    }
  }
  // Nothing but the saved files: no temporary files left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) {
    EXPECT_EQ(e.path().extension(), ".json") << e.path();
    ++files;
  }
  EXPECT_EQ(files, index);
}

TEST_F(ScenarioFiles, PresetsRoundTrip) {
  for (const auto& info : list_presets()) {
    const Scenario s = load_preset(info.name);
    const fs::path file = dir_ / (info.name + ".json");
    save_scenario(s, file);
    const Scenario back = load_scenario(file);
    EXPECT_TRUE(bit_identical(s.Q, back.Q)) << info.name;
    EXPECT_EQ(scenario_to_json(s), scenario_to_json(back)) << info.name;
  }
}

TEST_F(ScenarioFiles, MissingFileAndFolderAreInputErrors) {
  try {
    load_scenario(dir_ / "nope.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nope.json: no such file"), std::string::npos) << e.what();
  }
  try {
    load_scenario(dir_);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is a folder"), std::string::npos) << e.what();
  }
  EXPECT_THROW(save_scenario(load_preset("three-tokens"), dir_ / "no-such-folder" / "x.json"), InputError);
}

TEST(ScenarioParse, MinimalScenarioUsesTheDefaults) {
  const Scenario s = parse_scenario(R"({"Q": [[1, 2]], "K": [[3, 4], [5, 6]], "V": [[7], [8]]})", "x.json");
  EXPECT_EQ(s.Q.rows(), 1);
  EXPECT_EQ(s.K.rows(), 2);
  EXPECT_TRUE(s.options.scale);
  EXPECT_EQ(s.options.temperature, 1.0);
  EXPECT_EQ(s.options.mask.kind, MaskKind::None);
  EXPECT_EQ(s.options.normalizer, Normalizer::Softmax);
  EXPECT_TRUE(s.query_tokens.empty());
  EXPECT_EQ(display_tokens(s.query_tokens, 1), std::vector<std::string>{"t1"});
}

TEST(ScenarioParse, EveryMaskObject) {
  const std::string base = R"("Q": [[1],[2],[3]], "K": [[1],[2],[3]], "V": [[1],[2],[3]])";
  auto mask_of = [&](const std::string& mask) { return parse_scenario("{" + base + ", \"mask\": " + mask + "}", "x").options.mask; };
  EXPECT_EQ(mask_of(R"({"kind": "none"})").kind, MaskKind::None);
  EXPECT_EQ(mask_of(R"({"kind": "causal"})").kind, MaskKind::Causal);
  EXPECT_EQ(mask_of(R"({"kind": "padding", "valid": 2})").param, 2);
  EXPECT_EQ(mask_of(R"({"kind": "prefix", "prefix": 1})").param, 1);
  EXPECT_EQ(mask_of(R"({"kind": "window", "size": 3})").param, 3);
  const Mask c = mask_of(R"({"kind": "custom", "blocked": [[0,1,1],[0,0,1],[1,1,1]]})");
  EXPECT_EQ(c.kind, MaskKind::Custom);
  EXPECT_EQ(c.blocked, (BlockGrid{{0, 1, 1}, {0, 0, 1}, {1, 1, 1}}));
  EXPECT_EQ(mask_of(R"({"kind": "padding", "valid": 2.0})").param, 2);
}

TEST(ScenarioParse, BadInputNamesFileAndField) {
  const std::string qkv = R"("Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[1], [2]])";
  auto with = [&](const std::string& extra) { return "{" + qkv + ", " + extra + "}"; };
  test::RefusalCases cases{
      {R"({"Q": [[1]], "K": [[1]])", "malformed JSON at line 1"},
      {"{\n\"Q\": [[1]],\n\"K\": [[1]],\n", "malformed JSON at line 4"},
      {"", "malformed JSON"},
      {R"({"Q": [[NaN]], "K": [[1]], "V": [[1]]})", "NaN and Infinity are not JSON numbers"},
      {R"({"Q": [[Infinity]], "K": [[1]], "V": [[1]]})", "NaN and Infinity are not JSON numbers"},
      {R"({"Q": [[1e400]], "K": [[1]], "V": [[1]]})", "lesson.json: malformed JSON"},
      {R"({"Q": [[1e39]], "K": [[1]], "V": [[1]]})", "Q[0][0] is outside the float32 range"},
      {R"([1, 2])", "must be a JSON object"},
      {R"({"K": [[1]], "V": [[1]]})", "no \"Q\" matrix"},
      {R"({"Q": [[1, 2], [3]], "K": [[1, 2]], "V": [[1]]})", "Q row 2 has 1 number"},
      {R"({"Q": [[1, "2"]], "K": [[1, 2]], "V": [[1]]})", "Q[0][1] must be a number, not a string"},
      {R"({"Q": [[1, null]], "K": [[1, 2]], "V": [[1]]})", "Q[0][1] must be a number, not null"},
      {R"({"Q": [], "K": [[1]], "V": [[1]]})", "Q is empty"},
      {R"({"Q": [[]], "K": [[1]], "V": [[1]]})", "Q row 1 is empty"},
      {R"({"Q": [1, 2], "K": [[1]], "V": [[1]]})", "Q row 1 must be a list of numbers"},
      {R"({"Q": "abc", "K": [[1]], "V": [[1]]})", "Q must be a list of rows"},
      {R"({"Q": [[1, 2]], "K": [[1, 2, 3]], "V": [[1]]})", "d_k"},
      {R"({"Q": [[1]], "K": [[1], [2]], "V": [[1]]})", "K and V must have the same number of rows"},
      {with(R"("temperature": 0)"), "temperature"},
      {with(R"("temperature": -2)"), "temperature"},
      {with(R"("temperature": null)"), "temperature must be a number"},
      {with(R"("temperature": "hot")"), "temperature must be a number"},
      {with(R"("scale": "yes")"), "scale must be true or false"},
      {with(R"("query_tokens": ["a", "b", "c"])"), "query_tokens has 3 labels but Q has 2 rows"},
      {with(R"("key_tokens": ["a"])"), "key_tokens has 1 label"},
      {with(R"("key_tokens": ["a", 2])"), "key_tokens[1] must be a string"},
      {with(R"("normalizer": "softermax")"), "normalizer: unknown normalizer 'softermax'"},
      {with(R"("format": "other")"), "format must be"},
      {with(R"("version": 2, "future_field": 1)"), "field \"future_field\" of version 2"},
      {with(R"("version": 0)"), "version must be 1 or more"},
      {with(R"("title": 5)"), "title must be a string"},
  };
  // Bad masks, each in a scenario otherwise good (2 × 2 scores).
  const test::RefusalCases masks{
      {R"({"kind": "diagonal"})", "mask.kind: unknown mask kind 'diagonal'"},
      {R"({"kind": 3})", "mask.kind must be a string"},
      {R"({})", "mask needs a \"kind\""},
      {R"("causal")", "mask must be an object"},
      {R"({"kind": "padding"})", "needs \"valid\""},
      {R"({"kind": "padding", "valid": -1})", "mask.valid is -1"},
      {R"({"kind": "padding", "valid": 3})", "padding length 3 is larger than the number of keys (2)"},
      {R"({"kind": "padding", "valid": 1.5})", "mask.valid must be a whole number"},
      {R"({"kind": "padding", "valid": 18446744073709551615})", "mask.valid is absurdly large"},
      {R"({"kind": "prefix", "prefix": 5})", "prefix length 5"},
      {R"({"kind": "window", "size": -3})", "mask.size is -3"},
      {R"({"kind": "window", "size": 3})", "window size 3"},
      {R"({"kind": "causal", "size": 3})", "mask.size is not a field of a causal mask"},
      {R"({"kind": "custom"})", "custom mask needs a \"blocked\" grid"},
      {R"({"kind": "custom", "blocked": [[0, 1]]})", "custom mask is 1×2 but the scores are 2×2"},
      {R"({"kind": "custom", "blocked": [[0, 1], [2, 0]]})", "mask.blocked[1][0] is 2"},
      {R"({"kind": "custom", "blocked": [[0, 0.5], [1, 0]]})", "mask.blocked[0][1] is 0.5"},
      {R"({"kind": "custom", "blocked": [[0, 1], [1]]})", "mask.blocked row 2"},
  };
  for (const auto& [mask, expected] : masks) cases.emplace_back(with(R"("mask": )" + mask), expected);
  test::expect_each_refused(cases, "lesson.json", [](const std::string& json) { parse_scenario(json, "lesson.json"); });
}

TEST(ScenarioParse, UnknownFieldsOfVersionOneAreIgnored) {
  const Scenario s =
      parse_scenario(R"({"version": 1, "Q": [[1]], "K": [[1]], "V": [[1]], "notes": "kept for people"})", "x.json");
  EXPECT_EQ(s.Q(0, 0), 1.0f);
}

TEST(OneLine, EscapesControlCharactersAndBrokenUtf8ButKeepsGoodUtf8) {
  EXPECT_EQ(one_line("plain sentence"), "plain sentence");
  EXPECT_EQ(one_line("two\nlines\r\t"), "two\\x0Alines\\x0D\\x09");
  EXPECT_EQ(one_line("Q·Kᵀ — ü √ ∞"), "Q·Kᵀ — ü √ ∞");
  EXPECT_EQ(one_line("bad \xF4\x28 byte \xC0\xAF end \xE2\x82"), "bad \\xF4( byte \\xC0\\xAF end \\xE2\\x82");
  EXPECT_EQ(one_line(std::string("nul\0x", 5)), "nul\\x00x");
}

}  // namespace
}  // namespace attnlab
