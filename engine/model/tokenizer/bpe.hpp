// The byte-pair-encoding core that GPT-2's vocab.json + merges.txt and tokenizer.json's BPE model
// share (docs/MODELS.md, "Tokenizer"): a vocabulary, merges ranked by their order in the file, the
// merge loop, and byte-level BPE's table of 256 printable characters standing for the bytes.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace attnlab::model {

// The largest id a tokenizer.json may give a token: ids index rows of an embedding, and the
// largest vocabularies today are a few hundred thousand.
inline constexpr int kMaxTokenId = (1 << 22) - 1;

// Byte-level BPE's alphabet (GPT-2's): bytes '!'…'~', '¡'…'¬', '®'…'ÿ' stand for themselves, the
// other 68 take the code points from U+0100 up in byte order (a space is 'Ġ'), so every byte is a
// visible character and no piece of text holds a space. Each entry is that character in UTF-8.
const std::array<std::string, 256>& byte_level_alphabet();
// The bytes a byte-level token spells, or nullopt when one of its characters is not in the
// alphabet (a special token such as "<|endoftext|>" is then shown as it is spelled).
std::optional<std::string> byte_level_bytes(std::string_view token);

class BpeModel {
public:
  // Adds a token; false when the token or the id is taken already.
  bool add_token(const std::string& token, int id);
  // The id of `token`, or -1.
  int id(std::string_view token) const;
  // The token with id `id`, or nullptr.
  const std::string* token(int id) const;
  // The largest id plus one.
  int size() const { return static_cast<int>(tokens_.size()); }

  // Why a merge was not added: `missing` is a token (a, b or a + b) the vocabulary lacks, else
  // `repeats` is the rank the same merge has already.
  struct Refusal {
    std::string missing;
    int repeats = -1;
  };
  // Adds the merge of `a` and `b` with the next rank, or says why not (and adds nothing).
  std::optional<Refusal> add_merge(std::string_view a, std::string_view b);
  // Adds the merge of tokens `a` and `b` (ids) into `merged` with the given rank, which several
  // merges may share (SentencePiece's: a merged token's score ranks every pair that makes it, and
  // among pairs of one rank the leftmost merges first). False when the pair has a merge already.
  bool add_merge(int a, int b, int merged, int rank);
  std::size_t merge_count() const { return merges_.size(); }

  // Merges `symbols` (ids) in place: the adjacent pair of the lowest rank is replaced by its
  // merged token, the leftmost first among pairs of one rank, until no adjacent pair has a merge.
  // A heap of candidate pairs over a linked list: O(n log n) for n symbols, so a long word with no
  // pre-tokenizer to split it (a SentencePiece-style text) never costs n² lookups.
  void merge(std::vector<int>& symbols) const;

private:
  struct Merge {
    int rank;
    int merged;
  };
  static std::uint64_t pair_key(int a, int b) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
  }
  const Merge* find_merge(int a, int b) const;

  std::unordered_map<std::string, int> ids_;
  std::vector<std::string> tokens_;  // id → token ("" where no token has that id)
  std::vector<bool> used_;           // id → whether a token has it
  std::unordered_map<std::uint64_t, Merge> merges_;
};

// One line of merges.txt, or one string merge of tokenizer.json: two tokens separated by exactly
// one space. nullopt when it is not.
std::optional<std::pair<std::string_view, std::string_view>> split_merge(std::string_view line);

}  // namespace attnlab::model
