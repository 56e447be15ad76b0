// UTF-8 and Unicode for the tokenizers: checking and walking UTF-8, showing bytes as text, and the
// character properties the pipeline asks about (whitespace, word characters, NFC), from utf8proc's
// tables (the project's rule: never hand-made tables).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab::model {

// The length of the valid UTF-8 character starting at s[i] (1 to 4), or 0 when none starts there
// (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
std::size_t utf8_char_length(std::string_view s, std::size_t i);
// The code point of the valid character of `len` bytes at s[i].
char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t len);
void append_utf8(std::string& out, char32_t cp);
// Throws InputError "the text is not valid UTF-8 (at byte N)" unless `text` is valid UTF-8.
void check_utf8(std::string_view text);

// `bytes` as valid UTF-8, bytes that start no valid character written \xNN.
std::string printable_utf8(std::string_view bytes);

// Unicode's White_Space property: the separators (Zs, Zl, Zp), U+0009 to U+000D and U+0085.
bool is_whitespace(char32_t cp);
// A letter, a number or '_': what "inside a word" means for added tokens marked single_word.
bool is_word_character(char32_t cp);
// Unicode's canonical composition (NFC) of valid UTF-8 `text`.
std::string nfc(std::string_view text);

}  // namespace attnlab::model
