// The pre-tokenizers a tokenizer.json may name, as Hugging Face tokenizers defines them.
#include "engine/model/tokenizer/pre_tokenizers.hpp"

#include "engine/model/tokenizer/bpe.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/unicode.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>

namespace attnlab::model {

const Pattern& gpt2_pattern() {
  static const Pattern pattern =
      Pattern::regex(R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)", "GPT-2's pre-tokenizer");
  return pattern;
}

std::string to_byte_level(std::string_view bytes) {
  const auto& alphabet = byte_level_alphabet();
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) out += alphabet[c];
  return out;
}

namespace {

// What becomes of the matches when a piece is split on a pattern (tokenizers' "behavior"), shown
// on "the-final--countdown" split on "-": Removed the, final, countdown; Isolated the, -, final, -,
// -, countdown; MergedWithPrevious the-, final-, -, countdown; MergedWithNext the, -final, -,
// -countdown; Contiguous the, -, final, --, countdown.
enum class Behavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };

struct Span {
  std::size_t begin, end;
  bool match;
};

// The piece as alternating stretches of matches and the text between them.
std::vector<Span> spans_of(std::size_t size, const std::vector<Match>& matches, bool invert) {
  std::vector<Span> spans;
  std::size_t prev = 0;
  for (const auto& [begin, end] : matches) {
    if (prev < begin) spans.push_back({prev, begin, invert});
    spans.push_back({begin, end, !invert});
    prev = end;
  }
  if (prev < size) spans.push_back({prev, size, invert});
  return spans;
}

std::vector<Span> apply_behavior(const std::vector<Span>& spans, Behavior behavior) {
  std::vector<Span> out;
  bool previous_match = false;
  switch (behavior) {
    case Behavior::removed:
      std::copy_if(spans.begin(), spans.end(), std::back_inserter(out), [](const Span& s) { return !s.match; });
      break;
    case Behavior::isolated: out = spans; break;
    case Behavior::merged_with_previous:
      for (const Span& s : spans) {
        if (s.match && !previous_match && !out.empty()) out.back().end = s.end;
        else out.push_back(s);
        previous_match = s.match;
      }
      break;
    case Behavior::merged_with_next:
      for (auto it = spans.rbegin(); it != spans.rend(); ++it) {
        if (it->match && !previous_match && !out.empty()) out.back().begin = it->begin;
        else out.push_back(*it);
        previous_match = it->match;
      }
      std::reverse(out.begin(), out.end());
      break;
    case Behavior::contiguous:
      for (const Span& s : spans) {
        if (s.match == previous_match && !out.empty()) out.back().end = s.end;
        else out.push_back(s);
        previous_match = s.match;
      }
      break;
  }
  return out;
}

// Splits every piece at `pattern`'s matches; `rewrite` may change a piece first (Metaspace's
// spaces, ByteLevel's prefix space).
template <class Rewrite>
void split_pieces(std::vector<Piece>& pieces, const Pattern* pattern, Behavior behavior, bool invert, Rewrite rewrite) {
  std::vector<Piece> out;
  for (Piece& piece : pieces) {
    rewrite(piece);
    if (!pattern) {
      if (!piece.text.empty()) out.push_back(std::move(piece));
      continue;
    }
    for (const Span& s : apply_behavior(spans_of(piece.text.size(), pattern->find_all(piece.text), invert), behavior)) {
      if (s.end > s.begin) out.push_back({piece.text.substr(s.begin, s.end - s.begin), piece.at_start && s.begin == 0});
    }
  }
  pieces = std::move(out);
}

const auto kKeep = [](Piece&) {};

// A pattern as the file writes it (Llama 3's and Qwen's contractions, letters, up to three digits…).
class SplitPreTokenizer : public PreTokenizer {
public:
  SplitPreTokenizer(Pattern pattern, Behavior behavior, bool invert) : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override { split_pieces(pieces, &pattern_, behavior_, invert_, kKeep); }

private:
  Pattern pattern_;
  Behavior behavior_;
  bool invert_;
};

// Byte-level BPE's bytes-to-characters step, with GPT-2's split first when use_regex is on.
class ByteLevelPreTokenizer : public PreTokenizer {
public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space), use_regex_(use_regex) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    split_pieces(pieces, use_regex_ ? &gpt2_pattern() : nullptr, Behavior::isolated, false, [&](Piece& p) {
      if (add_prefix_space_ && !p.text.empty() && p.text.front() != ' ') p.text.insert(0, 1, ' ');
    });
    for (Piece& p : pieces) p.text = to_byte_level(p.text);
  }

private:
  bool add_prefix_space_, use_regex_;
};

// SentencePiece's spaces: ' ' becomes the replacement ("▁"), one is put before the text when
// the prepend scheme says so, and with split on each "▁" starts a new word.
class MetaspacePreTokenizer : public PreTokenizer {
public:
  enum class Prepend { always, first, never };
  MetaspacePreTokenizer(std::string replacement, Prepend prepend, bool split)
      : replacement_(std::move(replacement)), prepend_(prepend), split_(Pattern::literal(replacement_)), split_on_(split) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    split_pieces(pieces, split_on_ ? &split_ : nullptr, Behavior::merged_with_next, false, [&](Piece& p) {
      p.text = space_.replace_all(p.text, replacement_);
      const bool wanted = prepend_ == Prepend::always || (prepend_ == Prepend::first && p.at_start);
      if (wanted && p.text.compare(0, replacement_.size(), replacement_) != 0) p.text.insert(0, replacement_);
    });
  }

private:
  std::string replacement_;
  Prepend prepend_;
  Pattern split_;
  Pattern space_ = Pattern::literal(" ");
  bool split_on_;
};

// Digits apart from the rest: each on its own, or runs of them (SmolLM2's individual digits).
class DigitsPreTokenizer : public PreTokenizer {
public:
  explicit DigitsPreTokenizer(bool individual) : individual_(individual) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    // \p{N}: Unicode's numbers (Nd, Nl, No), what tokenizers' char::is_numeric tests.
    static const Pattern digit = Pattern::regex(R"(\p{N})", "Digits");
    split_pieces(pieces, &digit, individual_ ? Behavior::isolated : Behavior::contiguous, false, kKeep);
  }

private:
  bool individual_;
};

class SequencePreTokenizer : public PreTokenizer {
public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void pre_tokenize(std::vector<Piece>& pieces) const override {
    for (const auto& step : steps_) step->pre_tokenize(pieces);
  }

private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

Behavior read_behavior(const JsonField& field) {
  const std::string name = field.string();
  if (name == "Removed") return Behavior::removed;
  if (name == "Isolated") return Behavior::isolated;
  if (name == "MergedWithPrevious") return Behavior::merged_with_previous;
  if (name == "MergedWithNext") return Behavior::merged_with_next;
  if (name == "Contiguous") return Behavior::contiguous;
  field.fail("is " + in_quotes(name) + ", not Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

std::unique_ptr<PreTokenizer> read_metaspace(const JsonField& field) {
  const JsonField replacement = field.at("replacement");
  std::string r = replacement.string();
  if (r.empty() || utf8_char_length(r, 0) != r.size()) replacement.fail("is not one character");
  // Files written before prepend_scheme existed say add_prefix_space instead.
  using Prepend = MetaspacePreTokenizer::Prepend;
  auto prepend = field.boolean_or("add_prefix_space", true) ? Prepend::always : Prepend::never;
  if (const auto scheme = field.find("prepend_scheme")) {
    const std::string s = scheme->string();
    if (s == "always") prepend = Prepend::always;
    else if (s == "first") prepend = Prepend::first;
    else if (s == "never") prepend = Prepend::never;
    else scheme->fail("is " + in_quotes(s) + ", not always, first or never");
  }
  return std::make_unique<MetaspacePreTokenizer>(std::move(r), prepend, field.boolean_or("split", true));
}

std::unique_ptr<PreTokenizer> read_pre_tokenizer(const JsonField& field, int depth) {
  const std::string type = field.at("type").string();
  if (type == "Split") {
    return std::make_unique<SplitPreTokenizer>(read_pattern(field.at("pattern")), read_behavior(field.at("behavior")),
                                               field.boolean_or("invert", false));
  }
  if (type == "ByteLevel") {
    return std::make_unique<ByteLevelPreTokenizer>(field.boolean_or("add_prefix_space", true), field.boolean_or("use_regex", true));
  }
  if (type == "Metaspace") return read_metaspace(field);
  if (type == "Digits") return std::make_unique<DigitsPreTokenizer>(field.boolean_or("individual_digits", false));
  if (type == "Sequence") {
    return std::make_unique<SequencePreTokenizer>(field.sequence_of<PreTokenizer>("pretokenizers", depth, read_pre_tokenizer));
  }
  field.unsupported("pre-tokenizer", type, "Split, ByteLevel, Metaspace, Digits and Sequence");
}

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const JsonField& field) { return read_pre_tokenizer(field, 0); }

}  // namespace attnlab::model
