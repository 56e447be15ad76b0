// The tokenizer a GGUF file carries in its metadata (docs/MODELS.md, "GGUF files"), as llama.cpp
// reads it: `tokenizer.ggml.model` "gpt2" (byte-level BPE: tokens, merges, the pre-tokenizer named by
// `tokenizer.ggml.pre`) or "llama" (SentencePiece: tokens, scores, token types, byte fallback), the
// special-token ids and the add-BOS/EOS flags. Put together from the tokenizer.json pipeline's own
// stages (tokenizer/pipeline.hpp): control and user-defined tokens are added tokens found in the raw
// text, the pre-tokenizer is the one of the models' tokenizer.json files that `pre` stands for, and
// SentencePiece's merges rank every pair that makes a token by that token's score.
#pragma once

#include "engine/model/gguf_file.hpp"
#include "engine/model/tokenizer.hpp"

#include <memory>
#include <string>

namespace attnlab::model {

struct GgufTokenizer {
  std::unique_ptr<Tokenizer> tokenizer;  // null when the file has none Attention Lab reads
  std::string missing;                   // then why, one sentence naming the file and the key
};

// The tokenizer of a GGUF file's metadata. Throws InputError when the tokenizer is there but broken
// (a token list that is not one, duplicate tokens, token types or scores shorter than the tokens,
// special ids outside the vocabulary); a tokenizer of another kind, or an unknown pre-tokenizer,
// leaves the model without one (`missing` says why; --ids needs none).
GgufTokenizer gguf_tokenizer(const GgufMetadata& metadata);

// The pre-tokenizer names (tokenizer.ggml.pre) Attention Lab reads, as a sentence lists them.
std::string gguf_pre_tokenizer_list();

}  // namespace attnlab::model
