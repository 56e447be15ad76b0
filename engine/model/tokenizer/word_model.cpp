// tokenizer.json's BPE model, as Hugging Face tokenizers defines it.
#include "engine/model/tokenizer/word_model.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cstdio>

namespace attnlab::model {

namespace {

void read_vocab(const JsonField& field, BpeModel& bpe) {
  for (const auto& [token, value] : field.object()) {
    const JsonField id_field(value, field.source(), field.path() + "[" + in_quotes(token) + "]");
    const int id = static_cast<int>(id_field.integer(0, kMaxTokenId));
    if (token.empty()) field.fail("has an empty token");
    if (!bpe.add_token(token, id)) {
      field.fail("gives id " + std::to_string(id) + " to two tokens, " + in_quotes(*bpe.token(id)) + " and " + in_quotes(token));
    }
  }
}

void read_merges(const JsonField& field, BpeModel& bpe) {
  const auto& list = field.array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonField merge = field[i];
    std::string a, b;
    if (merge.json().is_array()) {  // tokenizers 0.20 and later: ["a", "b"]
      if (merge.size() != 2) merge.fail("is not a pair of tokens");
      a = merge[0].string();
      b = merge[1].string();
    } else {  // before: "a b"
      const std::string line = merge.string();
      const auto pair = split_merge(line);
      if (!pair) merge.fail("is " + in_quotes(line) + ", not two tokens separated by one space");
      a = pair->first;
      b = pair->second;
    }
    if (const auto refusal = bpe.add_merge(a, b)) {
      if (refusal->repeats >= 0) {
        merge.fail("repeats the merge " + in_quotes(a + " " + b) + " of " + field.path() + "[" + std::to_string(refusal->repeats) + "]");
      }
      merge.fail("merges " + in_quotes(a + " " + b) + " but the vocabulary has no token " + in_quotes(refusal->missing));
    }
  }
}

// Options of tokenizers' BPE that change what a word becomes and that the families' files never
// set: refused rather than ignored.
void refuse_unused_options(const JsonField& field) {
  if (const auto dropout = field.find("dropout")) {
    if (!dropout->json().is_number() || dropout->json().get<double>() != 0.0) {
      dropout->fail("is " + dropout->json().dump() + ": BPE dropout drops merges at random, and Attention Lab encodes exactly");
    }
  }
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    if (!field.string_or(key, "").empty()) field.at(key).fail("is not empty; Attention Lab reads BPE models without subword markers");
  }
}

}  // namespace

WordModel WordModel::read(const JsonField& field) {
  const std::string type = field.at("type").string();
  if (type != "BPE") {
    field.unsupported("model", type, "BPE models (byte-level as in Llama 3 and Qwen, SentencePiece-style as in Llama 2 and Mistral)");
  }
  refuse_unused_options(field);
  WordModel m;
  read_vocab(field.at("vocab"), m.bpe_);
  read_merges(field.at("merges"), m.bpe_);
  if (const auto unk = field.find("unk_token")) {
    m.unk_ = m.bpe_.id(unk->string());
    if (m.unk_ < 0) unk->fail("is " + in_quotes(unk->string()) + ", which is not in the vocabulary");
  }
  m.fuse_unk_ = field.boolean_or("fuse_unk", false);
  m.byte_fallback_ = field.boolean_or("byte_fallback", false);
  m.ignore_merges_ = field.boolean_or("ignore_merges", false);
  m.find_byte_tokens();
  return m;
}

WordModel WordModel::of(BpeModel bpe, int unk, bool byte_fallback, bool ignore_merges) {
  WordModel m;
  m.bpe_ = std::move(bpe);
  m.unk_ = unk;
  m.byte_fallback_ = byte_fallback;
  m.ignore_merges_ = ignore_merges;
  m.find_byte_tokens();
  return m;
}

void WordModel::find_byte_tokens() {
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_tokens_[static_cast<std::size_t>(b)] = bpe_.id(name);
  }
}

void WordModel::encode_word(std::string_view word, std::vector<int>& ids) const {
  if (ignore_merges_) {
    if (const int id = bpe_.id(word); id >= 0) {
      ids.push_back(id);
      return;
    }
  }
  std::vector<int> symbols;
  bool after_unk = false;
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t len = utf8_char_length(word, i);
    const std::string_view c = word.substr(i, len);
    i += len;
    if (const int id = bpe_.id(c); id >= 0) {
      symbols.push_back(id);
      after_unk = false;
      continue;
    }
    if (byte_fallback_ && std::all_of(c.begin(), c.end(), [&](char b) { return byte_tokens_[static_cast<unsigned char>(b)] >= 0; })) {
      for (char b : c) symbols.push_back(byte_tokens_[static_cast<unsigned char>(b)]);
      after_unk = false;
      continue;
    }
    if (unk_ < 0) {
      throw InputError("the text's character " + in_quotes(c) + " is not in the tokenizer's vocabulary, which has no unknown token for it");
    }
    if (!(fuse_unk_ && after_unk)) symbols.push_back(unk_);
    after_unk = true;
  }
  bpe_.merge(symbols);
  ids.insert(ids.end(), symbols.begin(), symbols.end());
}

}  // namespace attnlab::model
