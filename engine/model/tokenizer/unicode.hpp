// Unicode for the tokenizers: checking that text is UTF-8, and the character properties the
// pipeline asks about (whitespace, word characters, NFC), from utf8proc's tables (the project's
// rule: never hand-made tables). Walking UTF-8 is engine/text/utf8.hpp.
#pragma once

#include "engine/text/utf8.hpp"

#include <string>
#include <string_view>

namespace attnlab::model {

// Throws InputError "the text is not valid UTF-8 (at byte N)" unless `text` is valid UTF-8.
void check_utf8(std::string_view text);

// Unicode's White_Space property: the separators (Zs, Zl, Zp), U+0009 to U+000D and U+0085.
bool is_whitespace(char32_t cp);
// A letter, a number or '_': what "inside a word" means for added tokens marked single_word.
bool is_word_character(char32_t cp);
// Unicode's canonical composition (NFC) of valid UTF-8 `text`.
std::string nfc(std::string_view text);

}  // namespace attnlab::model
