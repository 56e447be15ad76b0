// Fuzzes a link's fragment reader (the browser page's `#preset=…&scenario=…&exercise=…`, docs/WEB.md):
// any text is read without throwing, what it could not read said in one sentence, and what Share
// link writes from a decoded scenario and seed reads back to the same scenario and seed.
#include "fuzz/fuzz_check.hpp"
#include "gui/state/share_link.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string text(reinterpret_cast<const char*>(data), size);
  const gui::LinkFragment f = gui::read_link_fragment(text);
  FUZZ_CHECK(f.refused.find('\n') == std::string::npos);
  // What the app writes reads back whole: the bytes of any scenario text and any seed.
  const std::string fragment = gui::share_fragment(text, f.exercise_seed);
  const gui::LinkFragment back = gui::read_link_fragment(fragment);
  FUZZ_CHECK(back.refused.empty());
  FUZZ_CHECK(back.scenario_json == text);
  FUZZ_CHECK(back.exercise_seed == f.exercise_seed);
  FUZZ_CHECK(gui::base64url_decode(gui::base64url_encode(text), "fuzz") == text);
  return 0;
}
