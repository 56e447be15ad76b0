// GPT-2's byte-level BPE, written from its published description (docs/MODELS.md, "Tokenizer").
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/tokenizer/json_field.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/model/tokenizer/pre_tokenizers.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

namespace attnlab::model {

namespace {


std::string hex_byte(int b) { return {"0123456789abcdef"[b >> 4], "0123456789abcdef"[b & 15]}; }

}  // namespace

std::vector<std::string> pretokenize(std::string_view text) {
  check_utf8(text);
  std::vector<std::string> pieces;
  for (const auto& [begin, end] : gpt2_pattern().find_all(text)) {
    // Every character is whitespace, a letter, a number or something else, so the matches tile
    // the text and none is empty.
    pieces.emplace_back(text.substr(begin, end - begin));
  }
  return pieces;
}

BpeTokenizer BpeTokenizer::parse(std::string_view vocab_json, std::string_view merges_txt, std::string_view vocab_source,
                                 std::string_view merges_source) {
  BpeTokenizer t = parse_symbols(vocab_json, vocab_source);
  t.symbols_only_ = false;
  const std::string vsrc(vocab_source), msrc(merges_source);
  const auto& alphabet = byte_level_alphabet();
  for (int b = 0; b < 256; ++b) {
    const std::string& sym = alphabet[static_cast<std::size_t>(b)];
    t.byte_ids_[static_cast<std::size_t>(b)] = t.model_.id(sym);
    if (t.byte_ids_[static_cast<std::size_t>(b)] < 0) {
      throw InputError(vsrc + ": there is no token for the byte 0x" + hex_byte(b) + " (" + sym + "), which every GPT-2 vocabulary has");
    }
  }
  std::size_t line_no = 0, pos = 0;
  std::vector<std::size_t> line_of_rank;
  while (pos < merges_txt.size()) {
    std::size_t eol = merges_txt.find('\n', pos);
    if (eol == std::string_view::npos) eol = merges_txt.size();
    std::string_view line = merges_txt.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.substr(0, 8) == "#version")) continue;
    const auto pair = split_merge(line);
    if (!pair) {
      throw InputError(msrc + ": line " + std::to_string(line_no) + " is " + in_quotes(line) + ", not two symbols separated by one space");
    }
    if (const auto refusal = t.model_.add_merge(pair->first, pair->second)) {
      if (refusal->repeats >= 0) {
        throw InputError(msrc + ": line " + std::to_string(line_no) + " repeats the merge " + in_quotes(line) + " of line " +
                         std::to_string(line_of_rank[static_cast<std::size_t>(refusal->repeats)]));
      }
      throw InputError(msrc + ": line " + std::to_string(line_no) + " merges " + in_quotes(line) + " but " + vsrc + " has no token " +
                       in_quotes(refusal->missing));
    }
    line_of_rank.push_back(line_no);
  }
  return t;
}

BpeTokenizer BpeTokenizer::parse_symbols(std::string_view vocab_json, std::string_view vocab_source) {
  const std::string src(vocab_source);
  const nlohmann::json j = parse_json(vocab_json, src);
  if (!j.is_object() || j.empty()) throw InputError(src + ": not a JSON object of tokens and their ids");
  constexpr std::int64_t kMaxVocab = 1 << 22;
  if (static_cast<std::int64_t>(j.size()) > kMaxVocab) throw InputError(src + ": more than 4 194 304 tokens");
  BpeTokenizer t;
  t.symbols_only_ = true;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() >= static_cast<std::int64_t>(j.size())) {
      throw InputError(src + ": token " + in_quotes(it.key()) + " has id " + it->dump() + "; ids run from 0 to " +
                       std::to_string(j.size() - 1));
    }
    if (it.key().empty()) throw InputError(src + ": a token is the empty string");
    const int id = static_cast<int>(it->get<std::int64_t>());
    if (!t.model_.add_token(it.key(), id)) {
      throw InputError(src + ": id " + std::to_string(id) + " belongs to two tokens, " + in_quotes(*t.model_.token(id)) + " and " +
                       in_quotes(it.key()));
    }
  }
  return t;
}

BpeTokenizer BpeTokenizer::load(const std::filesystem::path& vocab_path, const std::filesystem::path& merges_path) {
  return parse(read_file(vocab_path), read_file(merges_path), vocab_path.string(), merges_path.string());
}

std::vector<int> BpeTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  if (symbols_only_) {
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && is_space(text[i])) ++i;
      std::size_t j = i;
      while (j < text.size() && !is_space(text[j])) ++j;
      if (j == i) break;
      const int id = model_.id(text.substr(i, j - i));
      if (id < 0) {
        throw InputError("the text's symbol " + in_quotes(text.substr(i, j - i)) + " is not in this model's vocabulary (symbols 0 to " +
                         std::to_string(vocab_size() - 1) + ", separated by spaces)");
      }
      ids.push_back(id);
      i = j;
    }
    return ids;
  }
  std::vector<int> word;
  for (const std::string& piece : pretokenize(text)) {
    word.clear();
    for (unsigned char c : piece) word.push_back(byte_ids_[c]);
    model_.merge(word);  // parse() checked every merge's result is a token
    ids.insert(ids.end(), word.begin(), word.end());
  }
  return ids;
}

std::string BpeTokenizer::token_bytes(int id) const {
  const std::string* sym = model_.token(id);
  if (!sym) return "<" + std::to_string(id) + ">";
  if (symbols_only_) return *sym;
  // Every character of a GPT-2 token is in the alphabet (<|endoftext|>'s printable ASCII stands
  // for itself); a token with one that is not is taken as it is spelled.
  const auto bytes = byte_level_bytes(*sym);
  return bytes ? *bytes : *sym;
}

}  // namespace attnlab::model
