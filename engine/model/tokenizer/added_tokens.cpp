// Splitting added tokens out of a text, as Hugging Face tokenizers' AddedVocabulary does.
#include "engine/model/tokenizer/added_tokens.hpp"

#include "engine/model/tokenizer/normalizers.hpp"
#include "engine/model/tokenizer/unicode.hpp"

#include <algorithm>

namespace attnlab::model {

namespace {

// Where the character that ends just before byte `i` starts (i > 0, valid UTF-8).
std::size_t previous_char(std::string_view s, std::size_t i) {
  std::size_t start = i - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xc0) == 0x80) --start;
  return start;
}

char32_t char_before(std::string_view s, std::size_t i) {
  const std::size_t start = previous_char(s, i);
  return utf8_code_point(s, start, i - start);
}

char32_t char_at(std::string_view s, std::size_t i) { return utf8_code_point(s, i, utf8_char_length(s, i)); }

}  // namespace

void AddedTokens::Matcher::add(AddedToken token) {
  by_first_byte[static_cast<unsigned char>(token.content[0])].push_back(static_cast<int>(tokens.size()));
  tokens.push_back(std::move(token));
}

void AddedTokens::Matcher::sort() {
  for (auto& bucket : by_first_byte) {
    std::stable_sort(bucket.begin(), bucket.end(), [&](int a, int b) {
      return tokens[static_cast<std::size_t>(a)].content.size() > tokens[static_cast<std::size_t>(b)].content.size();
    });
  }
}

int AddedTokens::Matcher::longest_at(std::string_view text, std::size_t i) const {
  for (int k : by_first_byte[static_cast<unsigned char>(text[i])]) {
    const std::string& c = tokens[static_cast<std::size_t>(k)].content;
    if (text.compare(i, c.size(), c) == 0) return k;
  }
  return -1;
}

std::vector<Segment> AddedTokens::Matcher::split(std::string_view text, bool at_start) const {
  std::vector<Segment> out;
  const auto keep_text = [&](std::size_t begin, std::size_t end) {
    if (end > begin) out.push_back({std::string(text.substr(begin, end - begin)), -1, at_start && begin == 0});
  };
  std::size_t done = 0;  // the end of the last token taken (with its stripped whitespace)
  for (std::size_t i = 0; i < text.size();) {
    const int k = longest_at(text, i);
    if (k < 0) {
      i += utf8_char_length(text, i);
      continue;
    }
    const AddedToken& t = tokens[static_cast<std::size_t>(k)];
    std::size_t start = i, stop = i + t.content.size();
    i = stop;  // a match refused below is skipped whole, as tokenizers' matcher does
    if (t.single_word && ((start > 0 && is_word_character(char_before(text, start))) ||
                          (stop < text.size() && is_word_character(char_at(text, stop))))) {
      continue;
    }
    while (t.lstrip && start > done && is_whitespace(char_before(text, start))) start = previous_char(text, start);
    if (t.rstrip) {
      while (stop < text.size() && is_whitespace(char_at(text, stop))) stop += utf8_char_length(text, stop);
    }
    keep_text(done, start);
    out.push_back({t.content, t.id, false});
    done = i = stop;
  }
  keep_text(done, text.size());
  return out;
}

AddedTokens::AddedTokens(std::vector<AddedToken> tokens, const Normalizer* normalizer, bool split_special) : tokens_(std::move(tokens)) {
  for (std::size_t i = 0; i < tokens_.size(); ++i) by_id_.emplace(tokens_[i].id, i);
  for (const AddedToken& t : tokens_) {
    if (split_special && t.special) continue;
    AddedToken m = t;
    if (t.normalized && normalizer) m.content = normalizer->normalize(m.content);
    if (m.content.empty()) continue;
    (t.normalized ? normalized_ : raw_).add(std::move(m));
  }
  raw_.sort();
  normalized_.sort();
}

std::vector<Segment> AddedTokens::split(std::string_view text, const Normalizer* normalizer) const {
  std::vector<Segment> out;
  for (Segment& s : raw_.split(text, true)) {
    if (s.id >= 0) {
      out.push_back(std::move(s));
      continue;
    }
    const std::string normalized = normalizer ? normalizer->normalize(std::move(s.text)) : std::move(s.text);
    for (Segment& n : normalized_.split(normalized, s.at_start)) out.push_back(std::move(n));
  }
  return out;
}

const AddedToken* AddedTokens::find(int id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : &tokens_[it->second];
}

}  // namespace attnlab::model
