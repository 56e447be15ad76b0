// Hugging Face's tokenizer.json (with tokenizer_config.json) as a Tokenizer (docs/MODELS.md,
// "Tokenizer"): the BPE models of Llama 2 and 3, Mistral, TinyLlama, Qwen2/3 and SmolLM2, encoded
// exactly as the tokenizers library does. The pipeline, one file per stage: added tokens split out
// first (added_tokens), then normalizer → pre-tokenizer → model (BPE) → post-processor, and the
// decoder for a token's label.
#pragma once

#include "engine/model/tokenizer.hpp"

#include <filesystem>
#include <memory>
#include <string_view>

namespace attnlab::model {

// tokenizer.json's text, and tokenizer_config.json's (the empty string when there is none).
// `source` names tokenizer.json in errors (tokenizer_config.json is named as its sibling). A file
// that is not JSON, a malformed field or a component Attention Lab does not read (Unigram and
// WordPiece models among them) is an InputError with one sentence naming the file and the field.
std::unique_ptr<Tokenizer> parse_tokenizer_json(std::string_view tokenizer_json, std::string_view tokenizer_config_json,
                                                std::string_view source);
// Reads <folder>/tokenizer.json and, when present, <folder>/tokenizer_config.json.
std::unique_ptr<Tokenizer> load_tokenizer_json(const std::filesystem::path& folder);

}  // namespace attnlab::model
