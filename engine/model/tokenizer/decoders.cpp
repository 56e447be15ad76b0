// The decoders a tokenizer.json may name, as Hugging Face tokenizers defines them, one token at a time.
#include "engine/model/tokenizer/decoders.hpp"

#include "engine/model/tokenizer/bpe.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/regex.hpp"
#include "engine/model/tokenizer/unicode.hpp"

namespace attnlab::model {

namespace {

using Step = std::function<std::string(std::string)>;

// ByteLevel: the alphabet's characters back to their bytes ("Ġworld" → " world"); a token with a
// character outside the alphabet stays as it is spelled.
std::string byte_level(std::string token) {
  auto bytes = byte_level_bytes(token);
  return bytes ? std::move(*bytes) : token;
}

// ByteFallback: "<0x0A>" → the byte 0x0A (SentencePiece's byte tokens).
std::string byte_fallback(std::string token) {
  if (token.size() != 6 || token.compare(0, 3, "<0x") != 0 || token[5] != '>') return token;
  const auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  const int hi = hex(token[3]), lo = hex(token[4]);
  return hi < 0 || lo < 0 ? token : std::string(1, static_cast<char>(hi * 16 + lo));
}

// Strip: up to `start` leading and `stop` trailing copies of `content` removed.
Step strip(std::string content, std::size_t start, std::size_t stop) {
  return [content = std::move(content), start, stop](std::string token) {
    const std::size_t n = content.size();
    std::size_t begin = 0, end = token.size();
    for (std::size_t k = 0; k < start && begin + n <= end && token.compare(begin, n, content) == 0; ++k) begin += n;
    for (std::size_t k = 0; k < stop && end >= begin + n && token.compare(end - n, n, content) == 0; ++k) end -= n;
    return token.substr(begin, end - begin);
  };
}

// Replace (and Metaspace, which turns its replacement back into spaces).
Step replace(Pattern pattern, std::string content) {
  return [pattern = std::move(pattern), content = std::move(content)](std::string token) { return pattern.replace_all(token, content); };
}

std::string one_character(const JsonField& field) {
  std::string c = field.string();
  if (c.empty() || utf8_char_length(c, 0) != c.size()) field.fail("is not one character");
  return c;
}

// Appends the steps `field` describes; returns false once a Fuse ends what one token's label takes.
bool read_steps(const JsonField& field, std::vector<Step>& steps, int depth) {
  const std::string type = field.at("type").string();
  if (type == "ByteLevel") {
    steps.emplace_back(byte_level);
  } else if (type == "Replace") {
    steps.push_back(replace(read_pattern(field.at("pattern")), field.at("content").string()));
  } else if (type == "ByteFallback") {
    steps.emplace_back(byte_fallback);
  } else if (type == "Strip") {
    steps.push_back(strip(one_character(field.at("content")), field.at("start").integer(0, 1 << 20), field.at("stop").integer(0, 1 << 20)));
  } else if (type == "Metaspace") {
    // The space it strips from the first token of a sequence is the sequence's, not a label's.
    steps.push_back(replace(Pattern::literal(one_character(field.at("replacement"))), " "));
  } else if (type == "Fuse") {
    return false;
  } else if (type == "Sequence") {
    bool per_token = true;
    std::vector<Step> after_fuse;  // still read, so that an unsupported one is refused all the same
    for (const JsonField& item : field.sequence("decoders", depth)) {
      per_token = read_steps(item, per_token ? steps : after_fuse, depth + 1) && per_token;
    }
    return per_token;
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
  for (const auto& step : steps_) s = step(std::move(s));
  return s;
}

}  // namespace attnlab::model
