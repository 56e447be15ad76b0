// The normalizers a tokenizer.json may name, as Hugging Face tokenizers defines them.
#include "engine/model/tokenizer/normalizers.hpp"

#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/regex.hpp"
#include "engine/model/tokenizer/unicode.hpp"

#include <vector>

namespace attnlab::model {

namespace {

// Unicode's canonical composition: "e" + U+0301 becomes "é" (Qwen's files).
class NfcNormalizer : public Normalizer {
public:
  std::string normalize(std::string text) const override { return nfc(text); }
};

// `prepend` before the text (Llama 2's "▁": every stretch starts as a word does).
class PrependNormalizer : public Normalizer {
public:
  explicit PrependNormalizer(std::string prepend) : prepend_(std::move(prepend)) {}
  std::string normalize(std::string text) const override { return prepend_ + text; }

private:
  std::string prepend_;
};

// Every match of a pattern replaced by `content` (Llama 2's spaces become "▁").
class ReplaceNormalizer : public Normalizer {
public:
  ReplaceNormalizer(Pattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  std::string normalize(std::string text) const override { return pattern_.replace_all(text, content_); }

private:
  Pattern pattern_;
  std::string content_;
};

class SequenceNormalizer : public Normalizer {
public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  std::string normalize(std::string text) const override {
    for (const auto& step : steps_) text = step->normalize(std::move(text));
    return text;
  }

private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

std::unique_ptr<Normalizer> read_normalizer(const JsonField& field, int depth) {
  const std::string type = field.at("type").string();
  if (type == "NFC") return std::make_unique<NfcNormalizer>();
  if (type == "Prepend") return std::make_unique<PrependNormalizer>(field.at("prepend").string());
  if (type == "Replace") return std::make_unique<ReplaceNormalizer>(read_pattern(field.at("pattern")), field.at("content").string());
  if (type == "Sequence") return std::make_unique<SequenceNormalizer>(field.sequence_of<Normalizer>("normalizers", depth, read_normalizer));
  field.unsupported("normalizer", type, "NFC, Prepend, Replace and Sequence");
}

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const JsonField& field) { return read_normalizer(field, 0); }

}  // namespace attnlab::model
