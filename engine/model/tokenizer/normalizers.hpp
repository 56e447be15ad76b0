// tokenizer.json's normalizers (Hugging Face tokenizers' first stage): the text of each stretch
// between added tokens is rewritten before it is split. NFC (utf8proc), Prepend, Replace and
// Sequence, one small class each; any other type is refused with a sentence.
#pragma once

#include <memory>
#include <string>

namespace attnlab::model {

class JsonField;

class Normalizer {
public:
  virtual ~Normalizer() = default;
  // `text` (valid UTF-8, not empty) as this normalizer rewrites it.
  virtual std::string normalize(std::string text) const = 0;
};

// The normalizer a tokenizer.json object describes; throws InputError naming the field.
std::unique_ptr<Normalizer> make_normalizer(const JsonField& field);

}  // namespace attnlab::model
