// Fuzzes the GPT-2 tokenizer's files and its text path: the input is split at the first two zero
// bytes into vocab.json, merges.txt and a text. Files either load or throw InputError; a loaded
// tokenizer turns any text into ids inside its vocabulary (or InputError for invalid UTF-8), and
// the ids' texts are valid UTF-8 that spell the text whenever it was valid UTF-8.
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/text/utf8.hpp"
#include "fuzz/fuzz_check.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::size_t a = all.find('\0');
  if (a == std::string_view::npos) return 0;
  const std::size_t b = all.find('\0', a + 1);
  if (b == std::string_view::npos) return 0;
  const std::string_view vocab = all.substr(0, a), merges = all.substr(a + 1, b - a - 1), text = all.substr(b + 1);
  try {
    const auto tok = attnlab::model::BpeTokenizer::parse(vocab, merges, "vocab.json", "merges.txt");
    std::vector<int> ids;
    try {
      ids = tok.encode(text);
    } catch (const attnlab::InputError&) {
      FUZZ_CHECK(attnlab::invalid_utf8_at(text) != std::string_view::npos);  // only invalid UTF-8 is refused
      return 0;
    }
    std::string spelled;
    for (int id : ids) {
      FUZZ_CHECK(id >= 0 && id < tok.vocab_size());
      spelled += tok.token_text(id);
    }
    // A token's bytes are shown whole only when they form UTF-8 on their own; compare only then.
    if (spelled.find("\\x") == std::string::npos) FUZZ_CHECK(spelled == text);
  } catch (const attnlab::InputError&) {
  }
  return 0;
}
