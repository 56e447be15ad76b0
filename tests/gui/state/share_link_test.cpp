// A link's URL fragment (app/gui/state/share_link.hpp), which the browser page reads: what Share
// link writes reads back to the same scenario and exercise seed, a link with no exercise is written
// as it always was, and every bad part is refused with one sentence while what could be read is kept.
#include "engine/attention/matrix.hpp"
#include "gui/state/share_link.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attnlab::gui {
namespace {

// A scenario's JSON with a multi-byte character (√), so every length mod 3 and bytes above 127 occur
// among the prefixes the tests take.
const std::string kJson = R"({"title": "Scaled √d_k", "Q": [[1, 0], [0, 1]], "K": [[1, 2], [3, 4]]})";

TEST(Base64url, EncodesRfc4648VectorsAndRoundTripsEveryByte) {
  // RFC 4648 §10's vectors, without padding; base64url's alphabet differs only in 62 and 63.
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""}, {"f", "Zg"}, {"fo", "Zm8"}, {"foo", "Zm9v"}, {"foob", "Zm9vYg"}, {"fooba", "Zm9vYmE"}, {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(base64url_encode(plain), coded);
    EXPECT_EQ(base64url_decode(coded, "test"), plain);
  }
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8") << "62 and 63 are - and _";
  EXPECT_EQ(base64url_decode("+/8=", "test"), "\xfb\xff") << "a plain base64 encoder's + / and padding are read too";
  std::string every;
  for (int b = 0; b < 256; ++b) every += static_cast<char>(b);
  for (size_t n = 0; n <= every.size(); n += 37) EXPECT_EQ(base64url_decode(base64url_encode(every.substr(0, n)), "test"), every.substr(0, n));
}

TEST(Base64url, RefusesWhatIsNotBase64urlNamingWhere) {
  for (const char* bad : {"Z", "Zm9vY", "Zm9v!", "Zm 9v", "Zg=x", "Zm9v\xc3\xa9"}) {
    try {
      (void)base64url_decode(bad, "the link's #scenario=");
      ADD_FAILURE() << bad << " was decoded";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("the link's #scenario=: ", 0), 0u) << e.what();
    }
  }
}

TEST(LinkFragment, ShareLinkWithoutAnExerciseIsTheScenarioAlone) {
  const std::string fragment = share_fragment(kJson, std::nullopt);
  EXPECT_EQ(fragment, "scenario=" + base64url_encode(kJson));
  const LinkFragment read = read_link_fragment(fragment);
  EXPECT_EQ(read.scenario_json, kJson);
  EXPECT_FALSE(read.exercise_seed);
  EXPECT_TRUE(read.refused.empty()) << read.refused;
}

TEST(LinkFragment, ShareLinkWithAnExerciseCarriesItsSeed) {
  for (const std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{18446744073709551615u}}) {
    const std::string fragment = share_fragment(kJson, seed);
    EXPECT_EQ(fragment, "scenario=" + base64url_encode(kJson) + "&exercise=" + std::to_string(seed));
    const LinkFragment read = read_link_fragment(fragment);
    EXPECT_EQ(read.scenario_json, kJson);
    ASSERT_TRUE(read.exercise_seed) << read.refused;
    EXPECT_EQ(*read.exercise_seed, seed);
    EXPECT_TRUE(read.refused.empty()) << read.refused;
  }
}

TEST(LinkFragment, APresetWithAnExerciseAsATeacherTypesIt) {
  const LinkFragment read = read_link_fragment("preset=causal-six&exercise=12");
  EXPECT_EQ(read.preset, "causal-six");
  ASSERT_TRUE(read.exercise_seed);
  EXPECT_EQ(*read.exercise_seed, 12u);
  EXPECT_TRUE(read.refused.empty()) << read.refused;
  // The exercise may come first; leading zeros are the same number; fields the app does not know
  // (a web host's own) and empty ones are left alone, as a fragment the app does not know always was.
  const LinkFragment reordered = read_link_fragment("exercise=012&&preset=causal-six&utm_source=mail");
  EXPECT_EQ(reordered.preset, "causal-six");
  EXPECT_EQ(reordered.exercise_seed, std::optional<std::uint64_t>(12));
  EXPECT_TRUE(reordered.refused.empty()) << reordered.refused;
  EXPECT_EQ(read_link_fragment("preset=three-tokens").preset, "three-tokens");
  EXPECT_FALSE(read_link_fragment("preset=three-tokens").exercise_seed);
  const LinkFragment nothing = read_link_fragment("section-2");
  EXPECT_TRUE(nothing.preset.empty() && nothing.scenario_json.empty() && !nothing.exercise_seed && nothing.refused.empty());
}

TEST(LinkFragment, ABadSeedIsSaidAndTheLessonStillOpens) {
  const std::string huge(5000, '9');
  for (const std::string& bad : {std::string(""), std::string("seven"), std::string("-3"), std::string("+3"), std::string("1e3"),
                                 std::string("3.5"), std::string(" 3"), std::string("3%20"), std::string("18446744073709551616"), huge}) {
    const LinkFragment read = read_link_fragment("preset=causal-six&exercise=" + bad);
    EXPECT_EQ(read.preset, "causal-six") << bad;
    EXPECT_FALSE(read.exercise_seed) << bad;
    EXPECT_EQ(read.refused.rfind("the link's exercise=", 0), 0u) << read.refused;
    EXPECT_NE(read.refused.find("a seed is a whole number from 0 to 18446744073709551615"), std::string::npos) << read.refused;
    EXPECT_LT(read.refused.size(), 200u) << "one sentence, however long the link";
  }
}

TEST(LinkFragment, WhatCannotBeOpenedTogetherIsSaidAndNothingOfItOpens) {
  // An exercise needs a lesson to be drawn from.
  const LinkFragment alone = read_link_fragment("exercise=3");
  EXPECT_FALSE(alone.exercise_seed);
  EXPECT_NE(alone.refused.find("#preset=LESSON&exercise=3"), std::string::npos) << alone.refused;
  // A scenario that cannot be decoded: not its exercise either (it would be another document's).
  const LinkFragment bad_scenario = read_link_fragment("scenario=@@&exercise=3");
  EXPECT_TRUE(bad_scenario.scenario_json.empty());
  EXPECT_FALSE(bad_scenario.exercise_seed);
  EXPECT_EQ(bad_scenario.refused.rfind("the link's #scenario=: '@' is not a base64url character", 0), 0u) << bad_scenario.refused;
  const LinkFragment no_name = read_link_fragment("preset=&exercise=3");
  EXPECT_FALSE(no_name.exercise_seed);
  EXPECT_NE(no_name.refused.find("names no lesson"), std::string::npos) << no_name.refused;
  // Two documents, or two exercises: a link opens one.
  const LinkFragment two = read_link_fragment("preset=causal-six&scenario=" + base64url_encode(kJson));
  EXPECT_TRUE(two.preset.empty() && two.scenario_json.empty());
  EXPECT_NE(two.refused.find("a link opens one"), std::string::npos) << two.refused;
  const LinkFragment two_seeds = read_link_fragment("preset=causal-six&exercise=3&exercise=4");
  EXPECT_EQ(two_seeds.preset, "causal-six");
  EXPECT_FALSE(two_seeds.exercise_seed);
  EXPECT_NE(two_seeds.refused.find("two exercises"), std::string::npos) << two_seeds.refused;
}

}  // namespace
}  // namespace attnlab::gui
