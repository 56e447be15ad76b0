// A GGUF file's tokenizer as llama.cpp reads it (gguf_tokenizer.hpp), on the tokenizer.json pipeline's
// stages. What llama.cpp does, and this mirrors (docs/MODELS.md, "GGUF files"): every token of the
// list is in the vocabulary; control, unknown and user-defined tokens are split out of the raw text
// first (control and unknown ones as special tokens); SentencePiece text gets "▁" before each stretch
// between them (add_space_prefix, on unless the file says off) and for every space, then merges the
// best-scoring pair first, the leftmost among equals, with unknown characters as their bytes'
// <0xNN> tokens; byte-level BPE splits each stretch by the pre-tokenizer's patterns, then merges by
// rank (llama-bpe and tekken keep a word that is a token whole). No NFC normalization.
#include "engine/model/gguf_tokenizer.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/pipeline.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace attnlab::model {

namespace {

using nlohmann::json;

// llama.cpp's token types (tokenizer.ggml.token_type).
enum TokenType { kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6 };

// A tokenizer.ggml.pre value: the pre-tokenizer of the tokenizer.json files it stands for (their
// patterns, with llama.cpp's case-explicit contractions where the files write (?i:…)), whether a
// word that is a token skips the merges, and whether BOS is added unless the file says.
struct PreRow {
  std::vector<const char*> names;
  const char* pre_tokenizer;
  bool ignore_merges, add_bos;
};

#define ATTNLAB_SPLIT(pattern) R"({"type": "Split", "behavior": "Isolated", "invert": false, "pattern": {"Regex": ")" pattern R"("}})"
#define ATTNLAB_BYTES(regex) R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": false, "use_regex": )" regex "}"
#define ATTNLAB_SEQUENCE(...) R"({"type": "Sequence", "pretokenizers": [)" __VA_ARGS__ "]}"
#define ATTNLAB_CONTRACTIONS R"((?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD]))"
#define ATTNLAB_REST R"(| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+)"
#define ATTNLAB_GPT2 R"('s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+)"

const std::vector<PreRow>& pre_rows() {
  static const std::vector<PreRow> rows = {
      {{"gpt-2", "phi-2", "mpt", "olmo"}, ATTNLAB_BYTES("true"), false, false},
      {{"llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral"},
       ATTNLAB_SEQUENCE(ATTNLAB_SPLIT(ATTNLAB_CONTRACTIONS R"(|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3})" ATTNLAB_REST) ", " ATTNLAB_BYTES("false")),
       true, true},
      {{"dbrx", "smaug-bpe"},
       ATTNLAB_SEQUENCE(ATTNLAB_SPLIT(ATTNLAB_CONTRACTIONS R"(|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3})" ATTNLAB_REST) ", " ATTNLAB_BYTES("false")),
       false, false},
      {{"qwen2", "deepseek-r1-qwen", "megrez", "stablelm2"},
       ATTNLAB_SEQUENCE(ATTNLAB_SPLIT(ATTNLAB_CONTRACTIONS R"(|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N})" ATTNLAB_REST) ", " ATTNLAB_BYTES("false")),
       false, false},
      {{"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b"},
       ATTNLAB_SEQUENCE(R"({"type": "Digits", "individual_digits": true}, )" ATTNLAB_BYTES("true")), false, false},
      {{"tekken"},
       ATTNLAB_SEQUENCE(ATTNLAB_SPLIT(R"([^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+|)"
                                      R"([^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*|\\p{N}|)"
                                      R"( ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+)") ", " ATTNLAB_BYTES("false")),
       true, true},
      // llama.cpp's default, for files that name none: four patterns one after the other.
      {{"default", ""},
       ATTNLAB_SEQUENCE(ATTNLAB_SPLIT(R"([\\p{P}\\$\\+<=>\\^~\\|]+)") ", " ATTNLAB_SPLIT(ATTNLAB_GPT2) ", " ATTNLAB_SPLIT(R"(\\p{N}+)") ", " ATTNLAB_SPLIT(
           R"([0-9][0-9][0-9])") ", " ATTNLAB_BYTES("false")),
       false, false},
  };
  return rows;
}

#undef ATTNLAB_SPLIT
#undef ATTNLAB_BYTES
#undef ATTNLAB_SEQUENCE
#undef ATTNLAB_CONTRACTIONS
#undef ATTNLAB_REST
#undef ATTNLAB_GPT2

const PreRow* find_pre(std::string_view name) {
  for (const PreRow& row : pre_rows()) {
    for (const char* n : row.names) {
      if (name == n) return &row;
    }
  }
  return nullptr;
}

struct Vocab {
  std::vector<std::string> tokens;
  std::vector<int> types;
  BpeModel bpe;
};

Vocab read_vocab(const GgufMetadata& md) {
  const auto tokens = md.strings("tokenizer.ggml.tokens");
  if (!tokens) md.fail("tokenizer.ggml.tokens", "is missing; a tokenizer needs its token list");
  if (tokens->size() > static_cast<std::size_t>(kMaxTokenId) + 1) md.fail("tokenizer.ggml.tokens", "lists more tokens than any model has");
  Vocab v;
  v.tokens.reserve(tokens->size());
  for (std::size_t i = 0; i < tokens->size(); ++i) {
    // llama.cpp names an empty token so that every id has a text.
    v.tokens.emplace_back((*tokens)[i].empty() ? "[EMPTY_" + std::to_string(i) + "]" : std::string((*tokens)[i]));
    if (!v.bpe.add_token(v.tokens.back(), static_cast<int>(i))) {
      md.fail("tokenizer.ggml.tokens", "holds " + in_quotes(v.tokens.back()) + " twice, as ids " + std::to_string(v.bpe.id(v.tokens.back())) +
                                           " and " + std::to_string(i));
    }
  }
  v.types.assign(tokens->size(), kNormal);
  if (const auto types = md.integers("tokenizer.ggml.token_type")) {
    if (types->size() < tokens->size()) {
      md.fail("tokenizer.ggml.token_type", "has " + std::to_string(types->size()) + " entries for " + std::to_string(tokens->size()) + " tokens");
    }
    for (std::size_t i = 0; i < tokens->size(); ++i) v.types[i] = static_cast<int>(std::clamp<std::int64_t>((*types)[i], 0, 7));
  }
  return v;
}

// SentencePiece merges the adjacent pair whose joined text is the best-scoring token: every split of
// every token into two tokens is a merge, ranked by the joined token's score (equal scores share a
// rank, and the leftmost pair of a rank goes first).
void add_scored_merges(const GgufMetadata& md, Vocab& v) {
  std::vector<double> scores(v.tokens.size(), 0.0);
  if (const auto s = md.numbers("tokenizer.ggml.scores")) {
    if (s->size() < v.tokens.size()) {
      md.fail("tokenizer.ggml.scores", "has " + std::to_string(s->size()) + " entries for " + std::to_string(v.tokens.size()) + " tokens");
    }
    std::copy_n(s->begin(), v.tokens.size(), scores.begin());
  }
  std::map<double, int, std::greater<>> rank_of;
  for (double s : scores) rank_of.emplace(std::isnan(s) ? -INFINITY : s, 0);
  int next = 0;
  for (auto& [score, rank] : rank_of) rank = next++;
  for (std::size_t t = 0; t < v.tokens.size(); ++t) {
    const std::string& text = v.tokens[t];
    const int rank = rank_of.at(std::isnan(scores[t]) ? -INFINITY : scores[t]);
    for (std::size_t k = utf8_char_length(text, 0); k > 0 && k < text.size(); k += std::max<std::size_t>(1, utf8_char_length(text, k))) {
      const int a = v.bpe.id(std::string_view(text).substr(0, k)), b = v.bpe.id(std::string_view(text).substr(k));
      if (a >= 0 && b >= 0) v.bpe.add_merge(a, b, static_cast<int>(t), rank);
    }
  }
}

// Byte-level BPE's ranked merges, "a b" split at the first space after the first byte as llama.cpp
// splits them. A merge naming text that is no token could never join two tokens here: left out.
void add_ranked_merges(const GgufMetadata& md, Vocab& v) {
  const auto merges = md.strings("tokenizer.ggml.merges");
  if (!merges) md.fail("tokenizer.ggml.merges", "is missing; a byte-level BPE tokenizer needs its merges");
  int rank = 0;
  for (const std::string_view m : *merges) {
    const std::size_t space = m.size() > 1 ? m.find(' ', 1) : std::string_view::npos;
    if (space == std::string_view::npos) continue;
    const std::string_view a = m.substr(0, space), b = m.substr(space + 1);
    const int ia = v.bpe.id(a), ib = v.bpe.id(b), im = v.bpe.id(std::string(a) + std::string(b));
    if (ia >= 0 && ib >= 0 && im >= 0) v.bpe.add_merge(ia, ib, im, rank);
    ++rank;
  }
}

// A special id: the file's, else llama.cpp's default for the kind (none when outside the vocabulary).
int special_id(const GgufMetadata& md, const char* key, int fallback, std::size_t n) {
  const auto id = md.integer(key);
  if (!id) return fallback >= 0 && static_cast<std::size_t>(fallback) < n ? fallback : -1;
  if (*id < 0 || static_cast<std::uint64_t>(*id) >= n) md.fail(key, "is " + std::to_string(*id) + ", outside the " + std::to_string(n) + " tokens");
  return static_cast<int>(*id);
}

std::unique_ptr<PreTokenizer> pre_tokenizer_of(const PreRow& row, const std::string& source) {
  const json j = json::parse(row.pre_tokenizer);
  return make_pre_tokenizer(JsonField(j, source, "tokenizer.ggml.pre"));
}

}  // namespace

std::string gguf_pre_tokenizer_list() {
  std::string s;
  for (const PreRow& row : pre_rows()) {
    for (const char* n : row.names) {
      if (*n) s += (s.empty() ? "" : ", ") + std::string(n);
    }
  }
  return s;
}

GgufTokenizer gguf_tokenizer(const GgufMetadata& md) {
  const std::string& src = md.source();
  const auto kind = md.string("tokenizer.ggml.model");
  if (!kind) return {nullptr, src + ": has no tokenizer (no tokenizer.ggml.model); --ids runs the model without one"};
  const bool spm = *kind == "llama";
  if (!spm && *kind != "gpt2") {
    return {nullptr, src + ": tokenizer.ggml.model is " + in_quotes(*kind) +
                         "; Attention Lab reads 'gpt2' (byte-level BPE) and 'llama' (SentencePiece) tokenizers (--ids runs without one)"};
  }
  const std::string pre_name(md.string("tokenizer.ggml.pre").value_or(""));
  const PreRow* pre = spm ? nullptr : find_pre(pre_name);
  if (!spm && !pre) {
    return {nullptr, src + ": tokenizer.ggml.pre is " + in_quotes(pre_name) + ", a pre-tokenizer Attention Lab does not know; it knows " +
                         gguf_pre_tokenizer_list() + " (--ids runs without one)"};
  }
  Vocab v = read_vocab(md);
  const std::size_t n = v.tokens.size();
  if (spm) add_scored_merges(md, v);
  else add_ranked_merges(md, v);
  auto t = std::make_unique<PipelineTokenizer>();
  t->size = static_cast<int>(n);
  const int bos = special_id(md, "tokenizer.ggml.bos_token_id", spm ? 1 : 11, n), eos = special_id(md, "tokenizer.ggml.eos_token_id", spm ? 2 : 11, n);
  const int unk = special_id(md, "tokenizer.ggml.unknown_token_id", spm ? 0 : -1, n);
  const bool add_bos = md.boolean("tokenizer.ggml.add_bos_token").value_or(spm || pre->add_bos);
  const bool add_eos = md.boolean("tokenizer.ggml.add_eos_token").value_or(false);
  for (const auto& [flag, id, key] : {std::tuple{add_bos, bos, "tokenizer.ggml.add_bos_token"}, std::tuple{add_eos, eos, "tokenizer.ggml.add_eos_token"}}) {
    if (flag && id < 0) md.fail(key, "is true, but the file names no such token");
  }
  if (add_bos) t->post.before.push_back(bos);
  if (add_eos) t->post.after.push_back(eos);
  std::vector<AddedToken> added;
  for (std::size_t i = 0; i < n; ++i) {
    const int type = v.types[i];
    if (type != kControl && type != kUnknown && type != kUserDefined) continue;
    AddedToken a;
    a.content = v.tokens[i];
    a.id = static_cast<int>(i);
    a.special = type != kUserDefined;
    added.push_back(std::move(a));
  }
  const bool prefix = spm && md.boolean("tokenizer.ggml.add_space_prefix").value_or(true);
  const json normalizer = json::parse(prefix ? R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"},
                                                   {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]})"
                                             : R"({"type": "Replace", "pattern": {"String": " "}, "content": "▁"})");
  const json decoder = json::parse(spm ? R"({"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "},
                                            {"type": "ByteFallback"}]})"
                                       : R"({"type": "ByteLevel"})");
  if (spm) t->normalizer = make_normalizer(JsonField(normalizer, src, "tokenizer.ggml.model"));
  else t->pre_tokenizer = pre_tokenizer_of(*pre, src);
  const JsonField decoder_field(decoder, src, "tokenizer.ggml.model");
  t->decoder = TokenDecoder::read(&decoder_field);
  t->added = AddedTokens(std::move(added), nullptr, false);
  t->model = WordModel::of(std::move(v.bpe), spm ? unk : -1, spm, !spm && pre->ignore_merges);
  return {std::move(t), ""};
}

}  // namespace attnlab::model
