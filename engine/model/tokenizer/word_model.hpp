// tokenizer.json's model (Hugging Face tokenizers' third stage): BPE over each word the
// pre-tokenizer made, on the BPE core GPT-2 shares (bpe.hpp). A word's characters are looked up in
// the vocabulary, a missing one falls back to its bytes' "<0xNN>" tokens (byte_fallback) or to the
// unknown token, and the merges run; with ignore_merges a word that is a token already stays whole.
// Unigram, WordPiece and WordLevel models are refused with a sentence that names them.
#pragma once

#include "engine/model/tokenizer/bpe.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace attnlab::model {

class JsonField;

class WordModel {
public:
  // Reads tokenizer.json's "model" object; throws InputError naming the field.
  static WordModel read(const JsonField& field);
  // A BPE model already built (a GGUF file's vocabulary): `unk` the unknown token's id or -1; byte
  // fallback takes the vocabulary's "<0xNN>" tokens.
  static WordModel of(BpeModel bpe, int unk, bool byte_fallback, bool ignore_merges);

  // Appends the ids of one word (valid UTF-8, not empty). Throws InputError when a character has no
  // token and the model has neither byte fallback nor an unknown token.
  void encode_word(std::string_view word, std::vector<int>& ids) const;
  const BpeModel& bpe() const { return bpe_; }

private:
  void find_byte_tokens();
  BpeModel bpe_;
  int unk_ = -1;  // the unknown token's id, or -1 when there is none
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
  std::array<int, 256> byte_tokens_{};  // byte → the id of "<0xNN>", or -1
};

}  // namespace attnlab::model
