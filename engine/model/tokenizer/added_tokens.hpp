// Added and special tokens (tokenizer.json's "added_tokens"): split out of the text before anything
// else runs, so "<|im_start|>" or "<s>" in a text is one token, never BPE's pieces of it. As in
// Hugging Face tokenizers: the leftmost, then longest, match wins; tokens marked normalized are
// matched in the normalized text (their content normalized too), the others in the raw text.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab::model {

class Normalizer;

struct AddedToken {
  std::string content;
  int id = -1;
  bool single_word = false;  // only where no letter, number or '_' touches it on either side
  bool lstrip = false;       // takes the whitespace on its left with it
  bool rstrip = false;       // and on its right
  bool normalized = false;   // matched after normalization
  bool special = false;
};

// One stretch of the text: an added token's id, or text (normalized already) for the
// pre-tokenizer. `at_start`: the stretch begins at the text's first byte.
struct Segment {
  std::string text;
  int id = -1;
  bool at_start = false;
};

class AddedTokens {
public:
  // `normalizer` (may be null) normalizes the contents of tokens marked normalized, as it will the
  // text; with `split_special` off, special tokens are matched, else left as text.
  AddedTokens(std::vector<AddedToken> tokens, const Normalizer* normalizer, bool split_special);
  AddedTokens() = default;

  // The text (valid UTF-8) as stretches: the raw text split at unnormalized tokens, each stretch
  // between them normalized, then split at normalized tokens. Empty stretches are dropped.
  std::vector<Segment> split(std::string_view text, const Normalizer* normalizer) const;
  // The token with id `id`, or nullptr.
  const AddedToken* find(int id) const;
  const std::vector<AddedToken>& tokens() const { return tokens_; }

private:
  // Tokens to look for, by their first byte, longest first.
  struct Matcher {
    std::vector<AddedToken> tokens;
    std::array<std::vector<int>, 256> by_first_byte;
    void add(AddedToken token);
    void sort();
    std::vector<Segment> split(std::string_view text, bool at_start) const;
    int longest_at(std::string_view text, std::size_t i) const;
  };
  std::vector<AddedToken> tokens_;
  std::unordered_map<int, std::size_t> by_id_;  // id → its place in tokens_
  Matcher raw_, normalized_;
};

}  // namespace attnlab::model
