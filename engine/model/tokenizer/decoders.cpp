// The decoders a tokenizer.json may name, as Hugging Face tokenizers defines them, one token at a time.
#include "engine/model/tokenizer/decoders.hpp"

#include "engine/model/tokenizer/bpe.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/regex.hpp"
#include "engine/model/tokenizer/unicode.hpp"

namespace attnlab::model {

namespace {

// Byte-level characters back to their bytes ("Ġworld" → " world"); a token with a character
// outside the alphabet stays as it is spelled.
class ByteLevelStep : public DecoderStep {
public:
  std::string decode(std::string token) const override {
    auto bytes = byte_level_bytes(token);
    return bytes ? std::move(*bytes) : token;
  }
};

class ReplaceStep : public DecoderStep {
public:
  ReplaceStep(Pattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  std::string decode(std::string token) const override { return pattern_.replace_all(token, content_); }

private:
  Pattern pattern_;
  std::string content_;
};

// "<0x0A>" → the byte 0x0A (SentencePiece's byte fallback).
class ByteFallbackStep : public DecoderStep {
public:
  std::string decode(std::string token) const override {
    if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return token;
    const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    const int hi = hex(token[3]), lo = hex(token[4]);
    return hi < 0 || lo < 0 ? token : std::string(1, static_cast<char>(hi * 16 + lo));
  }
};

// Up to `start` leading and `stop` trailing copies of one character removed.
class StripStep : public DecoderStep {
public:
  StripStep(std::string content, std::size_t start, std::size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  std::string decode(std::string token) const override {
    std::size_t begin = 0, end = token.size();
    for (std::size_t n = 0; n < start_ && token.compare(begin, content_.size(), content_) == 0 && begin < end; ++n) begin += content_.size();
    for (std::size_t n = 0; n < stop_ && end >= begin + content_.size() && token.compare(end - content_.size(), content_.size(), content_) == 0; ++n) {
      end -= content_.size();
    }
    return token.substr(begin, end - begin);
  }

private:
  std::string content_;
  std::size_t start_, stop_;
};

// Appends the steps `field` describes; returns false once a Fuse ends what one token's label takes.
bool read_steps(const JsonField& field, std::vector<std::shared_ptr<const DecoderStep>>& steps, int depth) {
  const std::string type = field.at("type").string();
  if (type == "ByteLevel") {
    steps.push_back(std::make_shared<ByteLevelStep>());
  } else if (type == "Replace") {
    steps.push_back(std::make_shared<ReplaceStep>(read_pattern(field.at("pattern")), field.at("content").string()));
  } else if (type == "ByteFallback") {
    steps.push_back(std::make_shared<ByteFallbackStep>());
  } else if (type == "Strip") {
    const JsonField content = field.at("content");
    const std::string c = content.string();
    if (c.empty() || utf8_char_length(c, 0) != c.size()) content.fail("is not one character");
    steps.push_back(std::make_shared<StripStep>(c, field.at("start").integer(0, 1 << 20), field.at("stop").integer(0, 1 << 20)));
  } else if (type == "Metaspace") {
    // Its replacement back to spaces; the space it strips from the first token of a sequence is
    // the sequence's, not a label's.
    const JsonField replacement = field.at("replacement");
    if (replacement.string().empty()) replacement.fail("is empty");
    steps.push_back(std::make_shared<ReplaceStep>(Pattern::literal(replacement.string()), " "));
  } else if (type == "Fuse") {
    return false;
  } else if (type == "Sequence") {
    const JsonField list = field.at("decoders");
    if (depth >= kMaxNesting) field.fail("nests Sequences more than " + std::to_string(kMaxNesting) + " deep");
    for (std::size_t i = 0; i < list.array().size(); ++i) {
      // Later steps are still read, so a file with an unsupported one is refused all the same.
      if (!read_steps(list[i], steps, depth + 1)) {
        std::vector<std::shared_ptr<const DecoderStep>> ignored;
        for (std::size_t k = i + 1; k < list.array().size(); ++k) read_steps(list[k], ignored, depth + 1);
        return false;
      }
    }
  } else {
    field.unsupported("decoder", type, "ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace and Sequence");
  }
  return true;
}

}  // namespace

TokenDecoder TokenDecoder::read(const JsonField* field) {
  TokenDecoder d;
  if (field) read_steps(*field, d.steps_, 0);
  return d;
}

std::string TokenDecoder::decode(std::string_view token) const {
  std::string s(token);
  for (const auto& step : steps_) s = step->decode(std::move(s));
  return s;
}

}  // namespace attnlab::model
