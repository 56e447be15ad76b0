// GPT-2's byte-level BPE tokenizer (docs/MODELS.md, "Tokenizer"): a pre-tokenizer regex with
// Unicode letter and number classes (PCRE2's), every byte mapped to a printable character, then
// the ranked merges of merges.txt applied in rank order inside each piece (the BPE core that
// tokenizer.json's byte-level models share, tokenizer/bpe.hpp). Also the toy models' tokenizer:
// symbols separated by spaces, a token's id its symbol's value.
#pragma once

#include "engine/model/tokenizer.hpp"
#include "engine/model/tokenizer/bpe.hpp"
#include "engine/model/tokenizer/unicode.hpp"

#include <array>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

class BpeTokenizer : public Tokenizer {
public:
  // Parses vocab.json (symbol → id) and merges.txt (one "a b" pair a line, by rank, an optional
  // "#version" first line). Throws InputError naming the file and the line or entry.
  static BpeTokenizer parse(std::string_view vocab_json, std::string_view merges_txt, std::string_view vocab_source,
                            std::string_view merges_source);
  static BpeTokenizer load(const std::filesystem::path& vocab_path, const std::filesystem::path& merges_path);
  // A toy model's vocabulary: vocab.json maps "0", "1", … to 0, 1, …; there are no merges.
  static BpeTokenizer parse_symbols(std::string_view vocab_json, std::string_view vocab_source);

  // The token ids of UTF-8 `text`. Throws InputError when the text is not valid UTF-8, or, for a
  // toy model, names a symbol the vocabulary lacks.
  std::vector<int> encode(std::string_view text) const override;
  // The bytes a token stands for: a GPT-2 token's characters mapped back to its bytes, a toy
  // model's symbol as it is spelled.
  std::string token_bytes(int id) const override;
  // The largest id plus one.
  int vocab_size() const override { return model_.size(); }
  bool is_symbols() const { return symbols_only_; }

private:
  BpeModel model_;                 // vocab.json's tokens and merges.txt's merges
  std::array<int, 256> byte_ids_{};  // byte → the id of its character in the alphabet
  bool symbols_only_ = false;
};

// GPT-2's pre-tokenizer pieces of `text` (for tests): "Hello world" → "Hello", " world". Throws
// InputError when `text` is not valid UTF-8.
std::vector<std::string> pretokenize(std::string_view text);

}  // namespace attnlab::model
