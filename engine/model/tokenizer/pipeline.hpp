// A tokenizer as Hugging Face tokenizers' pipeline of stages (docs/MODELS.md, "tokenizer.json"):
// added tokens split out first, each stretch between them normalized, pre-tokenized into words, each
// word encoded by the BPE model, the post-processor's special tokens around the ids; a token's text
// through the decoder. tokenizer.json's reader (tokenizer_json.cpp) and a GGUF file's
// (engine/model/gguf_tokenizer.cpp) both put one together from these stages.
#pragma once

#include "engine/model/tokenizer.hpp"
#include "engine/model/tokenizer/added_tokens.hpp"
#include "engine/model/tokenizer/decoders.hpp"
#include "engine/model/tokenizer/normalizers.hpp"
#include "engine/model/tokenizer/post_processors.hpp"
#include "engine/model/tokenizer/pre_tokenizers.hpp"
#include "engine/model/tokenizer/word_model.hpp"

#include <memory>

namespace attnlab::model {

class PipelineTokenizer : public Tokenizer {
public:
  std::vector<int> encode(std::string_view text) const override;
  std::string token_bytes(int id) const override;
  int vocab_size() const override { return size; }

  std::unique_ptr<Normalizer> normalizer;     // may be null
  std::unique_ptr<PreTokenizer> pre_tokenizer;  // may be null: each stretch is one word
  WordModel model;
  AddedTokens added;
  Template post;
  TokenDecoder decoder;
  int size = 0;  // the largest id plus one
};

}  // namespace attnlab::model
