// A pattern as a tokenizer file writes it, run by PCRE2 (UTF + UCP: \p{L}, \p{N}, \s and case-
// insensitive groups are Unicode's, lookahead included), and literal strings searched the same way:
// GPT-2's pre-tokenizer, tokenizer.json's Split pre-tokenizer and its Replace normalizer and decoder.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace attnlab::model {

class JsonField;

// [begin, end) byte offsets of one match.
using Match = std::pair<std::size_t, std::size_t>;

class Regex {
public:
  // Compiles `pattern`; throws InputError "<where>: the pattern '…' does not compile (PCRE2: …)".
  Regex(std::string_view pattern, std::string_view where);
  // The successive non-overlapping matches in valid UTF-8 `text`, left to right. An empty match
  // is listed too, and the search goes on one character later. Throws InputError when PCRE2 gives
  // up (its match limit: a pattern that backtracks without end).
  std::vector<Match> find_all(std::string_view text) const;

private:
  struct Compiled;
  std::shared_ptr<const Compiled> code_;  // shared: matching never writes to it
};

// A Split pre-tokenizer's or a Replace's pattern: {"String": literal} or {"Regex": pattern}.
class Pattern {
public:
  static Pattern literal(std::string text);
  static Pattern regex(std::string_view pattern, std::string_view where);
  std::vector<Match> find_all(std::string_view text) const;
  // `text` with every match replaced by `content` (taken literally).
  std::string replace_all(std::string_view text, std::string_view content) const;

private:
  std::string literal_;
  std::shared_ptr<const Regex> regex_;
};

// A tokenizer.json pattern object, {"String": "…"} or {"Regex": "…"}; an empty one (which would
// match everywhere) is refused.
Pattern read_pattern(const JsonField& field);

}  // namespace attnlab::model
