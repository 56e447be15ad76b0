// Walking and writing UTF-8 (RFC 3629), for every reader of text: the tokenizers, right-to-left
// ordering, and the places that show bytes a model wrote.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace attnlab {

// The length of the valid UTF-8 character starting at s[i] (1 to 4), or 0 when none starts there
// (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF).
std::size_t utf8_char_length(std::string_view s, std::size_t i);
// The code point of the valid character of `len` bytes at s[i].
char32_t utf8_code_point(std::string_view s, std::size_t i, std::size_t len);
void append_utf8(std::string& out, char32_t cp);
// The byte at which `text` stops being valid UTF-8, or std::string_view::npos when it is valid.
std::size_t invalid_utf8_at(std::string_view text);

// `bytes` as valid UTF-8, bytes that start no valid character written \xNN.
std::string printable_utf8(std::string_view bytes);

}  // namespace attnlab
