// Fuzzes the GUI's session and recovery readers (app/gui/persistence/session_file.hpp): any text is either a
// session/recovery file that survives a write/read round trip with sizes a window can have, or an
// InputError. Anything else (another exception, a sanitizer report) is a bug.
#include "fuzz/fuzz_check.hpp"
#include "gui/persistence/session_file.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace attnlab;
using namespace attnlab::gui;

bool same_scenario(const Scenario& a, const Scenario& b) {
  return a.Q == b.Q && a.K == b.K && a.V == b.V && a.title == b.title && a.query_tokens == b.query_tokens &&
         a.key_tokens == b.key_tokens && a.options.scale == b.options.scale &&
         a.options.temperature == b.options.temperature && a.options.mask == b.options.mask &&
         a.options.normalizer == b.options.normalizer;
}

void session(std::string_view text) {
  const auto read = fuzz::read_or_refused([&] { return parse_session(text, "session.json"); });
  if (!read) return;
  const SessionData& s = *read;
  FUZZ_CHECK(s.window.width >= kMinWindowWidth && s.window.width <= kMaxWindowSide);
  FUZZ_CHECK(s.window.height >= kMinWindowHeight && s.window.height <= kMaxWindowSide);
  FUZZ_CHECK(s.view.left_width >= 0 && s.view.bottom_height >= 0);
  FUZZ_CHECK(!s.doc.self_attention || s.doc.scenario.Q.rows() == s.doc.scenario.K.rows());
  const SessionData again = parse_session(session_json(s), "again.json");
  FUZZ_CHECK(same_scenario(again.doc.scenario, s.doc.scenario));
  FUZZ_CHECK(again.doc.self_attention == s.doc.self_attention && again.scenario_path == s.scenario_path);
  FUZZ_CHECK(again.recent_files == s.recent_files && again.window == s.window);
  const ViewSettings &a = again.view, &b = s.view;
  FUZZ_CHECK(a.presenter == b.presenter && a.theme == b.theme && a.sequential == b.sequential &&
             a.diverging == b.diverging && a.numbers_in_cells == b.numbers_in_cells && a.left_width == b.left_width &&
             a.bottom_height == b.bottom_height && a.open_windows == b.open_windows &&
             a.inputs_hidden == b.inputs_hidden && a.inputs_auto_fold == b.inputs_auto_fold &&
             a.tabs_enlarged == b.tabs_enlarged);
}

void recovery(std::string_view text) {
  const auto read = fuzz::read_or_refused([&] { return parse_recovery(text, "recovery.json"); });
  if (!read) return;
  const RecoveredWork& w = *read;
  FUZZ_CHECK(!w.doc.self_attention || w.doc.scenario.Q.rows() == w.doc.scenario.K.rows());
  const RecoveredWork again = parse_recovery(recovery_json(w.doc, w.scenario_path, w.saved_at, 1), "again.json");
  FUZZ_CHECK(same_scenario(again.doc.scenario, w.doc.scenario));
  FUZZ_CHECK(again.doc.self_attention == w.doc.self_attention && again.scenario_path == w.scenario_path &&
             again.saved_at == w.saved_at);
}

}  // namespace

// Every input goes through both readers: the two formats share their structure, so seeds of
// either kind teach the fuzzer about both.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = fuzz::input_text(data, size);
  session(text);
  recovery(text);
  return 0;
}
