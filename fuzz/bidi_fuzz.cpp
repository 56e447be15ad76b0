// Fuzzes right-to-left text in drawing order (engine/text/bidi.hpp), which the GUI and the figures
// apply to any text a user types or a model writes: any bytes come back without a crash; text
// without a right-to-left character comes back unchanged; valid UTF-8 comes back valid, with as
// many lines, and reordering alone (no Arabic letter to join) keeps every character (brackets
// counted as one kind, since a run mirrors them).
#include "fuzz/fuzz_check.hpp"
#include "engine/text/bidi.hpp"
#include "engine/text/utf8.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

namespace {

bool valid_utf8(std::string_view s) { return attnlab::invalid_utf8_at(s) == std::string_view::npos; }

// The bytes sorted, each bracket as '(' (a right-to-left run draws "(" as ")").
std::string bracket_blind(std::string s) {
  for (char& c : s)
    if (c == ')' || c == '[' || c == ']' || c == '{' || c == '}' || c == '<' || c == '>') c = '(';
  std::sort(s.begin(), s.end());
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace attnlab;
  const std::string_view text = fuzz::input_text(data, size);
  const std::string shown = visual_order(text);
  if (!has_right_to_left(text)) FUZZ_CHECK(shown == text);
  if (!valid_utf8(text)) return 0;
  FUZZ_CHECK(valid_utf8(shown));
  FUZZ_CHECK(std::count(shown.begin(), shown.end(), '\n') == std::count(text.begin(), text.end(), '\n'));
  const bool arabic = std::any_of(text.begin(), text.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return (b >= 0xD8 && b <= 0xDD) || b == 0xE0 || b == 0xEF;  // U+0600–U+077F, U+08xx, U+FBxx–U+FExx
  });
  // «, », and the mirrored pairs past U+2000 (‹ ›, ≤ ≥, the CJK brackets) change bytes when mirrored.
  const bool other_mirrored = text.find("\xC2\xAB") != std::string_view::npos || text.find("\xC2\xBB") != std::string_view::npos ||
                              text.find('\xE2') != std::string_view::npos || text.find("\xE3\x80") != std::string_view::npos;
  if (!arabic && !other_mirrored) FUZZ_CHECK(bracket_blind(shown) == bracket_blind(std::string(text)));
  return 0;
}
