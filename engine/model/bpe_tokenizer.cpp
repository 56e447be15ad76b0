// GPT-2's byte-level BPE, written from its published description (docs/MODELS.md, "Tokenizer").
#define PCRE2_CODE_UNIT_WIDTH 8
#include "engine/model/bpe_tokenizer.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/io/atomic_file.hpp"

#include <nlohmann/json.hpp>
#include <pcre2.h>

#include <climits>
#include <memory>

namespace attnlab::model {

namespace {

// GPT-2's pre-tokenizer: contractions, letters, numbers, other symbols (each with one optional
// leading space), then runs of whitespace. \p{L} and \p{N} are PCRE2's Unicode tables (PCRE2_UCP
// also makes \s Unicode-aware, as it is in the original's Python `regex`).
constexpr const char* kPattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct CodeDeleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};

const pcre2_code* pattern() {
  // Compiled once for the process (thread-safe initialization); matching never writes to it.
  static const std::unique_ptr<pcre2_code, CodeDeleter> code = [] {
    int err = 0;
    PCRE2_SIZE at = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &err, &at,
                                  nullptr);
    if (c) pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);  // optional: falls back to the interpreter
    return std::unique_ptr<pcre2_code, CodeDeleter>(c);
  }();
  if (!code) throw std::logic_error("the GPT-2 pre-tokenizer pattern does not compile with this PCRE2");
  return code.get();
}

void append_utf8(std::string& out, unsigned cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

// The length of the valid UTF-8 character starting at s[i], or 0 when none starts there.
std::size_t utf8_char_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned c = b(i);
  std::size_t len;
  unsigned cp;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) len = 2, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) len = 3, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) len = 4, cp = c & 0x07;
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  return len;
}

std::string shown(std::string_view s) { return "'" + printable_utf8(s.substr(0, 60)) + "'"; }

}  // namespace

std::string printable_utf8(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size();) {
    const std::size_t len = utf8_char_length(bytes, i);
    if (len == 0) {
      static constexpr char hex[] = "0123456789ABCDEF";
      const auto c = static_cast<unsigned char>(bytes[i]);
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
      ++i;
    } else {
      out.append(bytes.substr(i, len));
      i += len;
    }
  }
  return out;
}

std::vector<std::string> pretokenize(std::string_view text) {
  std::vector<std::string> pieces;
  if (text.empty()) return pieces;
  const pcre2_code* code = pattern();
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> md(pcre2_match_data_create_from_pattern(code, nullptr));
  if (!md) throw std::bad_alloc();
  PCRE2_SIZE at = 0;
  std::uint32_t options = 0;  // the first match checks the whole text is UTF-8; later ones need not
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  while (at < text.size()) {
    const int rc = pcre2_match(code, subject, text.size(), at, options, md.get(), nullptr);
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21) {
      const PCRE2_SIZE bad = pcre2_get_startchar(md.get());
      throw InputError("the text is not valid UTF-8 (at byte " + std::to_string(bad) + ")");
    }
    if (rc < 0) {
      // Every character is whitespace, a letter, a number or something else, so the pattern
      // matches everywhere; a failure here is PCRE2 running out of its limits.
      PCRE2_UCHAR msg[256];
      pcre2_get_error_message(rc, msg, sizeof msg);
      throw InputError(std::string("the text could not be split into words (") + reinterpret_cast<const char*>(msg) + ")");
    }
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    if (ov[1] <= at) throw InputError("the text could not be split into words (an empty match)");
    pieces.emplace_back(text.substr(ov[0], ov[1] - ov[0]));
    at = ov[1];
    options = PCRE2_NO_UTF_CHECK;
  }
  return pieces;
}

BpeTokenizer BpeTokenizer::parse(std::string_view vocab_json, std::string_view merges_txt, std::string_view vocab_source,
                                 std::string_view merges_source) {
  BpeTokenizer t = parse_symbols(vocab_json, vocab_source);
  t.symbols_only_ = false;
  const std::string vsrc(vocab_source), msrc(merges_source);
  // The byte-to-character map: printable Latin-1 bytes stand for themselves, the rest (control
  // characters, space, …) take the code points from 256 up, in byte order, so every byte is a
  // visible character and no piece ever holds a space.
  int next = 0;
  for (int b = 0; b < 256; ++b) {
    const bool self = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
    std::string sym;
    append_utf8(sym, self ? static_cast<unsigned>(b) : static_cast<unsigned>(256 + next++));
    if (!t.vocab_.count(sym)) {
      throw InputError(vsrc + ": there is no token for the byte 0x" + std::string(1, "0123456789abcdef"[b >> 4]) +
                       std::string(1, "0123456789abcdef"[b & 15]) + " (" + sym + "), which every GPT-2 vocabulary has");
    }
    t.byte_symbol_[b] = sym;
    t.symbol_byte_[sym] = static_cast<unsigned char>(b);
  }
  std::size_t line_no = 0, pos = 0;
  int rank = 0;
  std::unordered_map<std::string, std::size_t> first_line;
  while (pos < merges_txt.size()) {
    std::size_t eol = merges_txt.find('\n', pos);
    if (eol == std::string_view::npos) eol = merges_txt.size();
    std::string_view line = merges_txt.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || (line_no == 1 && line.substr(0, 8) == "#version")) continue;
    const std::size_t sp = line.find(' ');
    if (sp == std::string_view::npos || sp == 0 || sp + 1 >= line.size() || line.find(' ', sp + 1) != std::string_view::npos) {
      throw InputError(msrc + ": line " + std::to_string(line_no) + " is " + shown(line) + ", not two symbols separated by one space");
    }
    const std::string a(line.substr(0, sp)), b(line.substr(sp + 1));
    if (!t.vocab_.count(a) || !t.vocab_.count(b) || !t.vocab_.count(a + b)) {
      const std::string& missing = !t.vocab_.count(a) ? a : !t.vocab_.count(b) ? b : a + b;
      throw InputError(msrc + ": line " + std::to_string(line_no) + " merges " + shown(line) + " but " + vsrc + " has no token " +
                       shown(missing));
    }
    std::string key = a + ' ' + b;
    const auto [it, fresh] = first_line.emplace(key, line_no);
    if (!fresh) {
      throw InputError(msrc + ": line " + std::to_string(line_no) + " repeats the merge " + shown(line) + " of line " +
                       std::to_string(it->second));
    }
    t.ranks_.emplace(std::move(key), rank++);
  }
  return t;
}

BpeTokenizer BpeTokenizer::parse_symbols(std::string_view vocab_json, std::string_view vocab_source) {
  const std::string src(vocab_source);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(vocab_json);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(src + ": not JSON (" + e.what() + ")");
  }
  if (!j.is_object() || j.empty()) throw InputError(src + ": not a JSON object of tokens and their ids");
  constexpr std::int64_t kMaxVocab = 1 << 22;
  if (static_cast<std::int64_t>(j.size()) > kMaxVocab) throw InputError(src + ": more than 4 194 304 tokens");
  BpeTokenizer t;
  t.symbols_only_ = true;
  t.symbols_.assign(j.size(), std::string());
  std::vector<bool> seen(j.size(), false);
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_number_integer() || it->get<std::int64_t>() < 0 || it->get<std::int64_t>() >= static_cast<std::int64_t>(j.size())) {
      throw InputError(src + ": token " + shown(it.key()) + " has id " + it->dump() + "; ids run from 0 to " + std::to_string(j.size() - 1));
    }
    if (it.key().empty()) throw InputError(src + ": a token is the empty string");
    const auto id = static_cast<std::size_t>(it->get<std::int64_t>());
    if (seen[id]) throw InputError(src + ": id " + std::to_string(id) + " belongs to two tokens, " + shown(t.symbols_[id]) + " and " + shown(it.key()));
    seen[id] = true;
    t.symbols_[id] = it.key();
    t.vocab_.emplace(it.key(), static_cast<int>(id));
  }
  return t;
}

BpeTokenizer BpeTokenizer::load(const std::filesystem::path& vocab_path, const std::filesystem::path& merges_path) {
  return parse(read_file(vocab_path), read_file(merges_path), vocab_path.string(), merges_path.string());
}

std::vector<std::string> BpeTokenizer::bpe(const std::string& piece) const {
  std::vector<std::string> word;
  for (unsigned char c : piece) word.push_back(byte_symbol_[c]);
  std::string key;  // one buffer for every pair's lookup: a long word tries many pairs
  while (word.size() > 1) {
    int best = INT_MAX;
    std::size_t best_i = 0;
    for (std::size_t i = 0; i + 1 < word.size(); ++i) {
      key.assign(word[i]);
      key += ' ';
      key += word[i + 1];
      const auto it = ranks_.find(key);
      if (it != ranks_.end() && it->second < best) best = it->second, best_i = i;
    }
    if (best == INT_MAX) break;
    const std::string first = word[best_i], second = word[best_i + 1];
    std::vector<std::string> merged;
    merged.reserve(word.size());
    for (std::size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == first && word[i + 1] == second) {
        merged.push_back(first + second);
        i += 2;
      } else {
        merged.push_back(word[i++]);
      }
    }
    word = std::move(merged);
  }
  return word;
}

std::vector<int> BpeTokenizer::encode(std::string_view text) const {
  std::vector<int> ids;
  if (symbols_only_) {
    std::size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
      std::size_t j = i;
      while (j < text.size() && !(text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r')) ++j;
      if (j == i) break;
      const std::string sym(text.substr(i, j - i));
      const auto it = vocab_.find(sym);
      if (it == vocab_.end()) {
        throw InputError("the text's symbol " + shown(sym) + " is not in this model's vocabulary (symbols 0 to " +
                         std::to_string(symbols_.size() - 1) + ", separated by spaces)");
      }
      ids.push_back(it->second);
      i = j;
    }
    return ids;
  }
  for (const std::string& piece : pretokenize(text)) {
    for (const std::string& sym : bpe(piece)) ids.push_back(vocab_.at(sym));  // parse() checked every merge's result is a token
  }
  return ids;
}

std::string BpeTokenizer::token_text(int id) const {
  if (id < 0 || id >= vocab_size()) return "<" + std::to_string(id) + ">";
  const std::string& sym = symbols_[static_cast<std::size_t>(id)];
  if (symbols_only_) return printable_utf8(sym);
  std::string bytes;
  for (std::size_t i = 0; i < sym.size();) {
    std::size_t len = utf8_char_length(sym, i);
    if (len == 0) len = 1;
    const auto it = symbol_byte_.find(sym.substr(i, len));
    // Special tokens such as <|endoftext|> are spelled in plain printable characters, each of
    // which is its own byte; anything else is shown as it is spelled.
    if (it == symbol_byte_.end()) return printable_utf8(sym);
    bytes += static_cast<char>(it->second);
    i += len;
  }
  return printable_utf8(bytes);
}

}  // namespace attnlab::model
