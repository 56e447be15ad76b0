// tokenizer.json's decoders (Hugging Face tokenizers' last stage), used here for what the UI shows
// of one token (docs/MODELS.md, "A token's text"): a byte-level token's bytes; for SentencePiece-
// style tokens '▁' as a space and "<0xNN>" as its byte, so labels read like GPT-2's (" world").
// The steps that act on a token alone run (ByteLevel, Replace, ByteFallback, Strip, Metaspace);
// those after a Fuse act on the joined text of a whole sequence (Llama 2's Strip of the first
// space) and so do not apply to one token's label.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

class JsonField;

class TokenDecoder {
public:
  // Reads tokenizer.json's "decoder" (may be null: tokens are shown as they are spelled).
  static TokenDecoder read(const JsonField* field);
  // The bytes `token` stands for (not necessarily whole UTF-8 characters).
  std::string decode(std::string_view token) const;

private:
  // One per decoder the file names, in order: a token's text in, its rewritten text out.
  std::vector<std::function<std::string(std::string)>> steps_;
};

}  // namespace attnlab::model
