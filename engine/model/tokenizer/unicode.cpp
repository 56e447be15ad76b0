// Unicode properties and NFC from utf8proc (libutf8proc-dev).
#include "engine/model/tokenizer/unicode.hpp"

#include "engine/attention/matrix.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>
#include <new>

namespace attnlab::model {

void check_utf8(std::string_view text) {
  const std::size_t at = invalid_utf8_at(text);
  if (at != std::string_view::npos) throw InputError("the text is not valid UTF-8 (at byte " + std::to_string(at) + ")");
}

bool is_whitespace(char32_t cp) {
  if ((cp >= 0x09 && cp <= 0x0d) || cp == 0x85) return true;
  const utf8proc_category_t c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return c == UTF8PROC_CATEGORY_ZS || c == UTF8PROC_CATEGORY_ZL || c == UTF8PROC_CATEGORY_ZP;
}

bool is_word_character(char32_t cp) {
  if (cp == U'_') return true;
  const utf8proc_category_t c = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
  return (c >= UTF8PROC_CATEGORY_LU && c <= UTF8PROC_CATEGORY_LO) || (c >= UTF8PROC_CATEGORY_ND && c <= UTF8PROC_CATEGORY_NO);
}

std::string nfc(std::string_view text) {
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                          static_cast<utf8proc_ssize_t>(text.size()), &out,
                                          static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owned(out, &std::free);
  if (n == UTF8PROC_ERROR_NOMEM) throw std::bad_alloc();
  if (n < 0) throw InputError(std::string("the text could not be normalized to NFC (utf8proc: ") + utf8proc_errmsg(n) + ")");
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace attnlab::model
