// tokenizer.json's pre-tokenizers (Hugging Face tokenizers' second stage): each stretch of
// normalized text is split into the words that BPE then encodes one by one. Split (a pattern run
// by PCRE2 as the file writes it), ByteLevel, Metaspace, Digits and Sequence, one small class each;
// any other type is refused with a sentence.
#pragma once

#include "engine/model/tokenizer/regex.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

class JsonField;

// A word on its way to the model. `at_start`: it begins at the text's first byte (Metaspace's
// prepend_scheme "first" marks only that one).
struct Piece {
  std::string text;
  bool at_start = false;
};

class PreTokenizer {
public:
  virtual ~PreTokenizer() = default;
  // Splits (and may rewrite) every piece; empty pieces are dropped.
  virtual void pre_tokenize(std::vector<Piece>& pieces) const = 0;
};

// The pre-tokenizer a tokenizer.json object describes; throws InputError naming the field.
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonField& field);

// GPT-2's pre-tokenizer pattern (the ByteLevel pre-tokenizer's when use_regex is on):
// 's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
const Pattern& gpt2_pattern();

// Each byte of `bytes` as its character of byte-level BPE's alphabet ("Ġworld" for " world").
std::string to_byte_level(std::string_view bytes);

}  // namespace attnlab::model
