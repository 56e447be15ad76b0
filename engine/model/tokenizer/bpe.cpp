// Byte-pair encoding, written from its published description (GPT-2's encoder, Hugging Face
// tokenizers' BPE model): docs/MODELS.md, "Tokenizers".
#include "engine/model/tokenizer/bpe.hpp"

#include "engine/model/tokenizer/unicode.hpp"

#include <queue>

namespace attnlab::model {

const std::array<std::string, 256>& byte_level_alphabet() {
  static const std::array<std::string, 256> alphabet = [] {
    std::array<std::string, 256> a;
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) {
      const bool self = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
      append_utf8(a[static_cast<std::size_t>(b)], self ? static_cast<char32_t>(b) : next++);
    }
    return a;
  }();
  return alphabet;
}

std::optional<std::string> byte_level_bytes(std::string_view token) {
  // The alphabet's characters are U+0021…U+0143: one code point each, so a reverse table by code
  // point is small.
  static const std::array<int, 0x144> byte_of = [] {
    std::array<int, 0x144> t;
    t.fill(-1);
    const auto& alphabet = byte_level_alphabet();
    for (int b = 0; b < 256; ++b) {
      const std::string& s = alphabet[static_cast<std::size_t>(b)];
      t[utf8_code_point(s, 0, s.size())] = b;
    }
    return t;
  }();
  std::string bytes;
  for (std::size_t i = 0; i < token.size();) {
    const std::size_t len = utf8_char_length(token, i);
    if (len == 0) return std::nullopt;
    const char32_t cp = utf8_code_point(token, i, len);
    if (cp >= byte_of.size() || byte_of[cp] < 0) return std::nullopt;
    bytes += static_cast<char>(byte_of[cp]);
    i += len;
  }
  return bytes;
}

bool BpeModel::add_token(const std::string& token, int id) {
  const auto at = static_cast<std::size_t>(id);
  if (id < 0 || (at < used_.size() && used_[at]) || ids_.count(token)) return false;
  if (at >= tokens_.size()) {
    tokens_.resize(at + 1);
    used_.resize(at + 1, false);
  }
  tokens_[at] = token;
  used_[at] = true;
  ids_.emplace(token, id);
  return true;
}

int BpeModel::id(std::string_view token) const {
  const auto it = ids_.find(std::string(token));
  return it == ids_.end() ? -1 : it->second;
}

const std::string* BpeModel::token(int id) const {
  const auto at = static_cast<std::size_t>(id);
  return id >= 0 && at < tokens_.size() && used_[at] ? &tokens_[at] : nullptr;
}

std::optional<BpeModel::Refusal> BpeModel::add_merge(std::string_view a, std::string_view b) {
  std::string merged(a);
  merged += b;
  const int ia = id(a), ib = id(b), im = id(merged);
  if (ia < 0 || ib < 0 || im < 0) return Refusal{std::string(ia < 0 ? a : ib < 0 ? b : std::string_view(merged)), -1};
  const auto [it, fresh] = merges_.emplace(pair_key(ia, ib), Merge{static_cast<int>(merges_.size()), im});
  if (!fresh) return Refusal{"", it->second.rank};
  return std::nullopt;
}

bool BpeModel::add_merge(int a, int b, int merged, int rank) { return merges_.emplace(pair_key(a, b), Merge{rank, merged}).second; }

const BpeModel::Merge* BpeModel::find_merge(int a, int b) const {
  const auto it = merges_.find(pair_key(a, b));
  return it == merges_.end() ? nullptr : &it->second;
}

void BpeModel::merge(std::vector<int>& symbols) const {
  const int n = static_cast<int>(symbols.size());
  if (n < 2 || merges_.empty()) return;
  // The symbols as a linked list: a merge keeps the left one (so its position, which orders pairs
  // of one rank, is the leftmost original character) and unlinks the right one.
  std::vector<int> prev(static_cast<std::size_t>(n)), next(static_cast<std::size_t>(n));
  std::vector<bool> alive(static_cast<std::size_t>(n), true);
  for (int i = 0; i < n; ++i) {
    prev[static_cast<std::size_t>(i)] = i - 1;
    next[static_cast<std::size_t>(i)] = i + 1 < n ? i + 1 : -1;
  }
  struct Candidate {
    int rank;
    int pos;
  };
  const auto later = [](const Candidate& x, const Candidate& y) { return x.rank != y.rank ? x.rank > y.rank : x.pos > y.pos; };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(later)> heap(later);
  const auto consider = [&](int pos) {
    const int right = next[static_cast<std::size_t>(pos)];
    if (right < 0) return;
    if (const Merge* m = find_merge(symbols[static_cast<std::size_t>(pos)], symbols[static_cast<std::size_t>(right)])) {
      heap.push({m->rank, pos});
    }
  };
  for (int i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    const Candidate c = heap.top();
    heap.pop();
    const auto pos = static_cast<std::size_t>(c.pos);
    const int right = next[pos];
    if (!alive[pos] || right < 0) continue;
    // A candidate goes stale when either side has merged since: its pair (and so its rank,
    // which names one pair) is not what the list holds now.
    const Merge* m = find_merge(symbols[pos], symbols[static_cast<std::size_t>(right)]);
    if (!m || m->rank != c.rank) continue;
    symbols[pos] = m->merged;
    alive[static_cast<std::size_t>(right)] = false;
    next[pos] = next[static_cast<std::size_t>(right)];
    if (next[pos] >= 0) prev[static_cast<std::size_t>(next[pos])] = c.pos;
    if (prev[pos] >= 0) consider(prev[pos]);
    consider(c.pos);
  }
  std::size_t out = 0;
  for (int i = 0; i >= 0; i = next[static_cast<std::size_t>(i)]) symbols[out++] = symbols[static_cast<std::size_t>(i)];
  symbols.resize(out);
}

std::optional<std::pair<std::string_view, std::string_view>> split_merge(std::string_view line) {
  const std::size_t sp = line.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp + 1 >= line.size() || line.find(' ', sp + 1) != std::string_view::npos) {
    return std::nullopt;
  }
  return std::pair{line.substr(0, sp), line.substr(sp + 1)};
}

}  // namespace attnlab::model
