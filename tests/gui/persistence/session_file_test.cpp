// The GUI's session and recovery files read as text (app/gui/persistence/session_file.hpp): round trips, and
// hostile fields refused with a sentence naming the file and field, or clamped where the GUI can
// carry on (window sizes), never converted out of range.
#include "engine/lessons/presets.hpp"
#include "gui/persistence/session_file.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <utility>

namespace attnlab::gui {
namespace {

SessionData sample() {
  SessionData s;
  s.doc.scenario = default_scenario();
  s.doc.self_attention = true;
  s.scenario_path = "/home/teacher/lesson.json";
  s.view.theme = Theme::Light;
  s.view.sequential = "magma";
  s.view.left_width = 412.5f;
  s.view.inputs_auto_fold = false;  // the teacher brought back the column presenter mode had folded
  s.view.tabs_enlarged = true;
  s.view.open_windows = {{"Help", true}, {"Export", false}};
  s.recent_files = {"/home/teacher/lesson.json", "/tmp/q.npy"};
  s.window = {1500, 900};
  s.exercises = {{"three-tokens", {12, {"a", "c"}}}, {"causal-six", {18446744073709551615ull, {}}}};
  return s;
}

// The sample's JSON with `from` replaced by `to` (one occurrence, which must exist).
std::string edited(const std::string& from, const std::string& to) {
  std::string text = session_json(sample());
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " not in " << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(SessionFile, RoundTrips) {
  const SessionData s = sample();
  const SessionData t = parse_session(session_json(s), "session.json");
  EXPECT_EQ(t.doc.scenario.Q, s.doc.scenario.Q);
  EXPECT_TRUE(t.doc.self_attention);
  EXPECT_EQ(t.scenario_path, s.scenario_path);
  EXPECT_EQ(t.view.theme, Theme::Light);
  EXPECT_EQ(t.view.sequential, "magma");
  EXPECT_EQ(t.view.left_width, 412.5f);
  EXPECT_FALSE(t.view.inputs_auto_fold);
  EXPECT_TRUE(t.view.tabs_enlarged);
  EXPECT_EQ(t.view.open_windows, s.view.open_windows);
  EXPECT_EQ(t.recent_files, s.recent_files);
  EXPECT_EQ(t.window, s.window);
  EXPECT_EQ(t.exercises, s.exercises);
}

// What a student solved (issue 70) survives a restart; a session from before it has none, and a
// record that is not {"seed": whole number, "solved": [ids]} is refused naming the lesson.
TEST(SessionFile, ExercisesSolvedAreKeptAndCheckedLikeTheRest) {
  nlohmann::json old = nlohmann::json::parse(session_json(sample()));
  ASSERT_EQ(old.erase("exercises"), 1u);
  EXPECT_TRUE(parse_session(old.dump(), "old.json").exercises.empty());
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"\"seed\": 12", "\"seed\": -1"},
                                 {"\"seed\": 12", "\"seed\": 1.5"},
                                 {"\"seed\": 12", "\"seed\": \"12\""},
                                 {"\"a\",", "3,"}}) {
    try {
      parse_session(edited(from, to), "session.json");
      ADD_FAILURE() << to << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("exercises.three-tokens"), std::string::npos) << e.what();
    }
  }
}

// session_fuzz's first target: "window": [1e300, 1] went through nlohmann's get<int>(), a
// double-to-int conversion that is undefined for values out of int's range.
TEST(SessionFile, WindowSizesOutOfRangeAreClampedNotConverted) {
  const std::string text = edited("\"window\": [\n  1500,\n  900\n ]", "\"window\": [1e300, 1]");
  const SessionData s = parse_session(text, "session.json");
  EXPECT_EQ(s.window.width, kMaxWindowSide);
  EXPECT_EQ(s.window.height, kMinWindowHeight);
  const SessionData t =
      parse_session(edited("\"window\": [\n  1500,\n  900\n ]", "\"window\": [-1e300, 18446744073709551615]"), "s");
  EXPECT_EQ(t.window.width, kMinWindowWidth);
  EXPECT_EQ(t.window.height, kMaxWindowSide);
}

TEST(SessionFile, HostileFieldsAreRefusedNamingTheField) {
  const std::string window = "\"window\": [\n  1500,\n  900\n ]";
  const struct {
    std::string text, field;
  } cases[] = {
      {edited(window, "\"window\": [\"1500\", 900]"), "window[0]"},
      {edited(window, "\"window\": [1, 2, 3]"), "window"},
      {edited("\"left_width\": 412.5", "\"left_width\": 1e300"), "view.left_width"},
      {edited("\"left_width\": 412.5", "\"left_width\": -3"), "view.left_width"},
      {edited("\"theme\": \"light\"", "\"theme\": \"solarized\""), "view.theme"},
      {edited("\"Help\": true", "\"Help\": 1"), "view.open_windows.Help"},
      {edited("\"presenter\": false", "\"presenter\": \"no\""), "view.presenter"},
      {edited("\"/tmp/q.npy\"", "7"), "recent_files"},
      {edited("\"scenario_path\": \"/home/teacher/lesson.json\"", "\"scenario_path\": 7"), "scenario_path"},
      {edited("\"version\": 1", "\"version\": 0"), "version"},
      {edited("\"attnlab-session\"", "\"attnlab-scenario\""), "attnlab-session"},
      {edited(window, "\"window\": [1e999, 1]"), "session.json"},
      {"{\"format\": \"attnlab-session\"}", "scenario"},
      {"{not json", "session.json"},
  };
  for (const auto& c : cases) {
    const std::string why = test::error_of([&] { parse_session(c.text, "session.json"); });
    EXPECT_NE(why.find("session.json"), std::string::npos) << c.field << ": " << why;
    EXPECT_NE(why.find(c.field), std::string::npos) << c.field << ": " << why;
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  }
}

TEST(SessionFile, SelfAttentionOnARectangularProblemReadsAsCrossAttention) {
  SessionData s = sample();
  s.doc.scenario.K = s.doc.scenario.K.topRows(2).eval();  // eval: no aliasing while resizing
  s.doc.scenario.V = s.doc.scenario.V.topRows(2).eval();
  s.doc.scenario.key_tokens.resize(2);
  EXPECT_FALSE(parse_session(session_json(s), "s").doc.self_attention);
}

TEST(RecoveryFile, RoundTripsAndRefusesBadFields) {
  Document d;
  d.scenario = default_scenario();
  d.self_attention = true;
  const RecoveredWork w = parse_recovery(recovery_json(d, "/a.json", "2026-11-21 07:03:12", 42), "recovery.json");
  EXPECT_EQ(w.doc.scenario.V, d.scenario.V);
  EXPECT_EQ(w.scenario_path, "/a.json");
  EXPECT_EQ(w.saved_at, "2026-11-21 07:03:12");
  std::string text = recovery_json(d, "/a.json", "x", 42);
  text.replace(text.find("\"self_attention\": true"), 22, "\"self_attention\": \"true\"");
  test::expect_refusal([&] { parse_recovery(text, "recovery.json"); }, {"recovery.json: self_attention"});
}

}  // namespace
}  // namespace attnlab::gui
