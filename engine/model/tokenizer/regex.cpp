// PCRE2 for the tokenizers' patterns: compiled once (JIT when the platform has it), matched with
// limits so that a pattern from a damaged file fails with a sentence instead of running for ever.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "engine/model/tokenizer/regex.hpp"

#include "engine/attention/matrix.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "engine/text/text_format.hpp"

#include <pcre2.h>

#include <new>

namespace attnlab::model {

namespace {

// Enough for any tokenizer's pattern on any text a person types, small enough that a pattern
// that backtracks without end gives up in well under a second.
constexpr std::uint32_t kMatchLimit = 10'000'000;

std::string pcre2_message(int code) {
  PCRE2_UCHAR msg[256];
  pcre2_get_error_message(code, msg, sizeof msg);
  return reinterpret_cast<const char*>(msg);
}

}  // namespace

struct Regex::Compiled {
  pcre2_code* code = nullptr;
  pcre2_match_context* context = nullptr;
  ~Compiled() {
    pcre2_match_context_free(context);
    pcre2_code_free(code);
  }
};

Regex::Regex(std::string_view pattern, std::string_view where) {
  auto c = std::make_shared<Compiled>();
  int err = 0;
  PCRE2_SIZE at = 0;
  c->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), PCRE2_UTF | PCRE2_UCP, &err, &at, nullptr);
  if (!c->code) {
    throw InputError(std::string(where) + ": the pattern " + in_quotes(pattern) + " does not compile (PCRE2: " +
                     pcre2_message(err) + " at offset " + std::to_string(at) + ")");
  }
  pcre2_jit_compile(c->code, PCRE2_JIT_COMPLETE);  // optional: the interpreter runs it otherwise
  c->context = pcre2_match_context_create(nullptr);
  if (!c->context) throw std::bad_alloc();
  pcre2_set_match_limit(c->context, kMatchLimit);
  code_ = std::move(c);
}

std::vector<Match> Regex::find_all(std::string_view text) const {
  std::vector<Match> matches;
  const std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(
      pcre2_match_data_create_from_pattern(code_->code, nullptr), &pcre2_match_data_free);
  if (!md) throw std::bad_alloc();
  const auto subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  std::size_t at = 0;
  // The callers checked the text is UTF-8; after an empty match, first try a non-empty one at the
  // same place (as Perl does), then move on one character.
  std::uint32_t options = PCRE2_NO_UTF_CHECK;
  while (at <= text.size()) {
    int rc = pcre2_match(code_->code, subject, text.size(), at, options, md.get(), code_->context);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT) {
      rc = pcre2_match(code_->code, subject, text.size(), at, options | PCRE2_NO_JIT, md.get(), code_->context);
    }
    if (rc == PCRE2_ERROR_NOMATCH) {
      if (!(options & PCRE2_NOTEMPTY_ATSTART) || at >= text.size()) break;
      const std::size_t len = utf8_char_length(text, at);
      at += len ? len : 1;
      options = PCRE2_NO_UTF_CHECK;
      continue;
    }
    if (rc < 0) throw InputError("the tokenizer's pattern gave up on this text (PCRE2: " + pcre2_message(rc) + ")");
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    matches.emplace_back(ov[0], ov[1]);
    at = ov[1];
    options = PCRE2_NO_UTF_CHECK | (ov[0] == ov[1] ? PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : 0u);
  }
  return matches;
}

Pattern Pattern::literal(std::string text) {
  Pattern p;
  p.literal_ = std::move(text);
  return p;
}

Pattern Pattern::regex(std::string_view pattern, std::string_view where) {
  Pattern p;
  p.regex_ = std::make_shared<const Regex>(pattern, where);
  return p;
}

std::vector<Match> Pattern::find_all(std::string_view text) const {
  if (regex_) return regex_->find_all(text);
  std::vector<Match> matches;
  if (literal_.empty()) return matches;
  for (std::size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at + literal_.size())) {
    matches.emplace_back(at, at + literal_.size());
  }
  return matches;
}

std::string Pattern::replace_all(std::string_view text, std::string_view content) const {
  std::string out;
  std::size_t prev = 0;
  for (const auto& [begin, end] : find_all(text)) {
    out.append(text.substr(prev, begin - prev));
    out.append(content);
    prev = end;
  }
  out.append(text.substr(prev));
  return out;
}

Pattern read_pattern(const JsonField& field) {
  field.object();
  if (const auto literal = field.find("String")) {
    std::string text = literal->string();
    if (text.empty()) literal->fail("is empty, which would match everywhere");
    return Pattern::literal(std::move(text));
  }
  if (const auto regex = field.find("Regex")) {
    const std::string text = regex->string();
    if (text.empty()) regex->fail("is empty, which would match everywhere");
    return Pattern::regex(text, field.source() + ": " + regex->path());
  }
  field.fail("has neither \"String\" nor \"Regex\"");
}

}  // namespace attnlab::model
