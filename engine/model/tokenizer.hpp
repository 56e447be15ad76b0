// What every model's tokenizer gives the rest of the engine: text to ids, an id back to its text.
// GPT-2's vocab.json + merges.txt, a toy model's symbols and Hugging Face's tokenizer.json
// pipelines all implement it, so the model report, the CLI and the GUI never ask which one it is.
#pragma once

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
  // The text a token stands for, as valid UTF-8: a byte that does not complete a character on its
  // own (a piece of an emoji split between tokens) is written \xNN.
  virtual std::string token_text(int id) const = 0;
  // The largest id plus one.
  virtual int vocab_size() const = 0;
};

}  // namespace attnlab::model
