// Fuzzes tokenizer.json's reader and its pipeline: the input is split at the first two zero bytes
// into tokenizer.json, tokenizer_config.json and a text (without zero bytes, all of it is
// tokenizer.json). Files either load or throw InputError; a loaded tokenizer encodes the text and
// a few fixed strings, among them a 4096-character run of one letter (a merge loop quadratic in a
// word's length would run into the fuzzer's time limit), into ids inside its vocabulary whose
// texts are valid UTF-8, or refuses with InputError, which it must for text that is not UTF-8.
#include "engine/attention/matrix.hpp"
#include "engine/model/tokenizer/tokenizer_json.hpp"
#include "engine/text/utf8.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace {

void check_encoding(const attnlab::model::Tokenizer& tok, std::string_view text) {
  std::vector<int> ids;
  try {
    ids = tok.encode(text);
  } catch (const attnlab::InputError&) {
    return;  // invalid UTF-8, a character with no token, a pattern past PCRE2's limits
  }
  FUZZ_CHECK(attnlab::invalid_utf8_at(text) == std::string_view::npos);  // only valid UTF-8 is encoded
  for (int id : ids) {
    FUZZ_CHECK(id >= 0 && id < tok.vocab_size());
    const std::string shown = tok.token_text(id);
    FUZZ_CHECK(attnlab::invalid_utf8_at(shown) == std::string_view::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t a = all.find('\0');
  const std::size_t b = a == std::string_view::npos ? a : all.find('\0', a + 1);
  const std::string_view json = all.substr(0, a);
  const std::string_view config =
      a == std::string_view::npos ? std::string_view() : all.substr(a + 1, b == std::string_view::npos ? b : b - a - 1);
  const std::string_view text = b == std::string_view::npos ? std::string_view() : all.substr(b + 1);
  std::unique_ptr<attnlab::model::Tokenizer> tok;
  try {
    tok = attnlab::model::parse_tokenizer_json(json, config, "tokenizer.json");
  } catch (const attnlab::InputError&) {
    return 0;
  }
  static const std::string long_run(4096, 'a');
  for (std::string_view s : {text, std::string_view("Hello world"), std::string_view("  I'LL pay 12345\n\n ok"),
                             std::string_view("cafe\xcc\x81 \xe6\xbc\xa2 \xf0\x9f\x98\x80"), std::string_view(long_run)}) {
    check_encoding(*tok, s);
  }
  return 0;
}
