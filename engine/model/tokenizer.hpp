// What every model's tokenizer gives the rest of the engine: text to ids, an id back to its text.
// GPT-2's vocab.json + merges.txt, a toy model's symbols and Hugging Face's tokenizer.json
// pipelines all implement it, so the model report, the CLI and the GUI never ask which one it is.
#pragma once

#include "engine/text/utf8.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

class Tokenizer {
public:
  virtual ~Tokenizer() = default;
  // The ids of UTF-8 `text`, as the tokenizer encodes by default: special tokens its
  // post-processor adds (a BOS) included. Throws InputError with one sentence (invalid UTF-8, a
  // symbol a toy vocabulary lacks).
  virtual std::vector<int> encode(std::string_view text) const = 0;
  // The bytes a token stands for, as decoding writes them: a piece of a character split between
  // tokens (an emoji's first bytes) is not valid UTF-8 on its own. "<id>" for an id it lacks.
  virtual std::string token_bytes(int id) const = 0;
  // token_bytes as valid UTF-8: a byte that starts no valid character is written \xNN.
  std::string token_text(int id) const { return printable_utf8(token_bytes(id)); }
  // The largest id plus one.
  virtual int vocab_size() const = 0;
};

}  // namespace attnlab::model
