// tokenizer.json's pipeline on small hand-made files (docs/MODELS.md, "Tokenizer"): each
// component alone, the pipeline put together, each refusal's sentence, and the BPE core's merge
// loop against a plain loop written from GPT-2's description.
#include "engine/attention/matrix.hpp"
#include "engine/model/tokenizer/bpe.hpp"
#include "engine/model/tokenizer/json_field.hpp"
#include "engine/model/tokenizer/normalizers.hpp"
#include "engine/model/tokenizer/pre_tokenizers.hpp"
#include "engine/model/tokenizer/tokenizer_json.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>

namespace attnlab::model {
namespace {

using nlohmann::json;

// --- Components alone ---------------------------------------------------------------------------

std::vector<std::string> pre_tokenize(const json& config, const std::string& text, bool at_start = true) {
  const auto p = make_pre_tokenizer(JsonField(config, "t.json", "pre_tokenizer"));
  std::vector<Piece> pieces{{text, at_start}};
  p->pre_tokenize(pieces);
  std::vector<std::string> out;
  for (const Piece& piece : pieces) out.push_back(piece.text);
  return out;
}

std::string normalize(const json& config, const std::string& text) {
  return make_normalizer(JsonField(config, "t.json", "normalizer"))->normalize(text);
}

using Words = std::vector<std::string>;

TEST(TokenizerJsonComponents, SplitBehaviorsAsTokenizersDocumentsThem) {
  const auto split = [](const char* behavior, bool invert = false) {
    const json split = {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", behavior}, {"invert", invert}};
    return pre_tokenize(split, "the-final--countdown");
  };
  EXPECT_EQ(split("Removed"), (Words{"the", "final", "countdown"}));
  EXPECT_EQ(split("Isolated"), (Words{"the", "-", "final", "-", "-", "countdown"}));
  EXPECT_EQ(split("MergedWithPrevious"), (Words{"the-", "final-", "-", "countdown"}));
  EXPECT_EQ(split("MergedWithNext"), (Words{"the", "-final", "-", "-countdown"}));
  EXPECT_EQ(split("Contiguous"), (Words{"the", "-", "final", "--", "countdown"}));
  EXPECT_EQ(split("Removed", true), (Words{"-", "-", "-"}));  // invert: the pattern is what is kept apart
}

TEST(TokenizerJsonComponents, SplitRegexRunsAsTheFileWritesIt) {
  // Llama 3's pattern: a case-insensitive group, letters with one leading non-letter, up to three
  // digits, and a lookahead that leaves a run's last space to the next word.
  const json llama3 = {{"type", "Split"},
                       {"pattern", {{"Regex", R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)"}}},
                       {"behavior", "Isolated"}};
  EXPECT_EQ(pre_tokenize(llama3, "I'LL pay 12345 now  ok"), (Words{"I", "'LL", " pay", " ", "123", "45", " now", " ", " ok"}));
  EXPECT_EQ(pre_tokenize(llama3, "x\n\n  y"), (Words{"x", "\n\n", " ", " y"}));
  EXPECT_EQ(pre_tokenize(llama3, "日本語です"), (Words{"日本語です"}));
}

TEST(TokenizerJsonComponents, ByteLevelMapsBytesAndCanSplitAsGpt2) {
  EXPECT_EQ(pre_tokenize({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}, "a b\n"), (Words{"aĠbĊ"}));
  EXPECT_EQ(pre_tokenize({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}, "Hello world"),
            (Words{"Hello", "Ġworld"}));
  EXPECT_EQ(pre_tokenize({{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}}, "Hello"), (Words{"ĠHello"}));
  EXPECT_EQ(pre_tokenize({{"type", "ByteLevel"}, {"use_regex", false}}, "é"), (Words{"ĠÃ©"}));  // defaults: prefix space on
}

TEST(TokenizerJsonComponents, MetaspacePrependSchemesAndSplit) {
  const auto meta = [](const char* scheme, bool split) {
    return json{{"type", "Metaspace"}, {"replacement", "▁"}, {"prepend_scheme", scheme}, {"split", split}};
  };
  EXPECT_EQ(pre_tokenize(meta("always", false), "hi there"), (Words{"▁hi▁there"}));
  EXPECT_EQ(pre_tokenize(meta("always", false), " hi"), (Words{"▁hi"}));  // already starts with one
  EXPECT_EQ(pre_tokenize(meta("first", false), "hi", true), (Words{"▁hi"}));
  EXPECT_EQ(pre_tokenize(meta("first", false), "hi", false), (Words{"hi"}));  // not the text's first stretch
  EXPECT_EQ(pre_tokenize(meta("never", false), "hi there"), (Words{"hi▁there"}));
  EXPECT_EQ(pre_tokenize(meta("always", true), "hi  there"), (Words{"▁hi", "▁", "▁there"}));
  // Older files: add_prefix_space instead of prepend_scheme.
  EXPECT_EQ(pre_tokenize({{"type", "Metaspace"}, {"replacement", "▁"}, {"add_prefix_space", false}}, "a b"), (Words{"a", "▁b"}));
}

TEST(TokenizerJsonComponents, DigitsAloneOrInRunsThenSequence) {
  EXPECT_EQ(pre_tokenize({{"type", "Digits"}, {"individual_digits", true}}, "ab123c٣"), (Words{"ab", "1", "2", "3", "c", "٣"}));
  EXPECT_EQ(pre_tokenize({{"type", "Digits"}, {"individual_digits", false}}, "ab123c4"), (Words{"ab", "123", "c", "4"}));
  const json smollm = {{"type", "Sequence"},
                       {"pretokenizers",
                        {{{"type", "Digits"}, {"individual_digits", true}}, {{"type", "ByteLevel"}, {"add_prefix_space", false}}}}};
  EXPECT_EQ(pre_tokenize(smollm, "in 2024 ok"), (Words{"in", "Ġ", "2", "0", "2", "4", "Ġok"}));
}

// Llama 2's: a '▁' before the text, and every space a '▁'.
json llama2_normalizer() {
  const json prepend = {{"type", "Prepend"}, {"prepend", "▁"}};
  const json replace = {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}};
  return {{"type", "Sequence"}, {"normalizers", {prepend, replace}}};
}

TEST(TokenizerJsonComponents, Normalizers) {
  EXPECT_EQ(normalize({{"type", "NFC"}}, "cafe\u0301"), "café");
  EXPECT_EQ(normalize({{"type", "Prepend"}, {"prepend", "▁"}}, "hi"), "▁hi");
  EXPECT_EQ(normalize({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "▁"}}, "a b  c"), "a▁b▁▁c");
  EXPECT_EQ(normalize({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}}, "a  b   c d"), "a b c d");
  EXPECT_EQ(normalize(llama2_normalizer(), "Hello world"), "▁Hello▁world");
}

// --- The pipeline --------------------------------------------------------------------------------

// A byte-level vocabulary: the 256 characters of the alphabet, then `extra` tokens.
json byte_level_vocab(const std::vector<std::string>& extra) {
  json vocab = json::object();
  const auto& alphabet = byte_level_alphabet();
  for (int b = 0; b < 256; ++b) vocab[alphabet[static_cast<std::size_t>(b)]] = b;
  int id = 256;
  for (const std::string& t : extra) vocab[t] = id++;
  return vocab;
}

// A TemplateProcessing that puts `token` (id `id`) before the text.
json bos_template(const std::string& token, int id) {
  return {{"type", "TemplateProcessing"},
          {"single", {{{"SpecialToken", {{"id", token}, {"type_id", 0}}}}, {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
          {"special_tokens", {{token, {{"id", token}, {"ids", {id}}, {"tokens", {token}}}}}}};
}

// Llama 3's layout on a tiny vocabulary: ByteLevel with GPT-2's split, a BOS by template.
json byte_level_file() {
  const json model = {{"type", "BPE"},
                      {"vocab", byte_level_vocab({"he", "ll", "hell", "hello", "Ġw", "Ġwo", "or", "Ġworld", "ld", "orld"})},
                      {"merges", {"h e", "l l", "he ll", "hell o", "Ġ w", "o r", "l d", "or ld", "Ġw orld"}}};
  const json post = {{"type", "Sequence"}, {"processors", {{{"type", "ByteLevel"}}, bos_template("<|bos|>", 300)}}};
  return {{"model", model},
          {"added_tokens", {{{"id", 300}, {"content", "<|bos|>"}, {"special", true}, {"normalized", false}}}},
          {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
          {"post_processor", post},
          {"decoder", {{"type", "ByteLevel"}}}};
}

std::unique_ptr<Tokenizer> parse(const json& file, const json& config = nullptr) {
  return parse_tokenizer_json(file.dump(), config.is_null() ? "" : config.dump(), "tokenizer.json");
}

std::vector<std::string> texts(const Tokenizer& t, const std::vector<int>& ids) {
  std::vector<std::string> out;
  for (int id : ids) out.push_back(t.token_text(id));
  return out;
}

TEST(TokenizerJson, ByteLevelPipelineWithTemplate) {
  const auto t = parse(byte_level_file());
  const std::vector<int> ids = t->encode("hello world");
  EXPECT_EQ(texts(*t, ids), (Words{"<|bos|>", "hello", " world"}));
  EXPECT_EQ(ids.front(), 300);
  EXPECT_EQ(t->vocab_size(), 301);
  // The special token in the text is one token; a near miss is text.
  EXPECT_EQ(texts(*t, t->encode("hello<|bos|><|bos")), (Words{"<|bos|>", "hello", "<|bos|>", "<", "|", "b", "o", "s"}));
  // Bytes of a character split between tokens are labelled \xNN.
  EXPECT_EQ(texts(*t, t->encode("é")), (Words{"<|bos|>", "\\xC3", "\\xA9"}));
  EXPECT_THROW(t->encode("bad \xff"), InputError);
}

TEST(TokenizerJson, MergesAsStringsOrPairsRankedLowestFirst) {
  const auto with_merges = [](json merges) {
    json f = {{"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"bc", 4}, {"aa", 5}}}, {"merges", merges}}}};
    return parse(f);
  };
  EXPECT_EQ(with_merges(json{"b c", "a b"})->encode("abc"), (std::vector<int>{0, 4}));
  EXPECT_EQ(with_merges(json{"a b", "b c"})->encode("abc"), (std::vector<int>{3, 2}));
  EXPECT_EQ(with_merges(json::array({json::array({"a", "b"}), json::array({"b", "c"})}))->encode("abc"), (std::vector<int>{3, 2}));
  EXPECT_EQ(with_merges(json{"a a"})->encode("aaa"), (std::vector<int>{5, 0}));  // leftmost first
}

TEST(TokenizerJson, IgnoreMergesKeepsAWordThatIsAToken) {
  json f = {{"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}, {"c", 2}, {"ab", 3}, {"abc", 4}}}, {"merges", {"a b"}}}}};
  EXPECT_EQ(parse(f)->encode("abc"), (std::vector<int>{3, 2}));
  f["model"]["ignore_merges"] = true;
  EXPECT_EQ(parse(f)->encode("abc"), (std::vector<int>{4}));
}

// Llama 2's layout: normalizer Prepend + Replace, no pre-tokenizer, byte fallback, BOS by template.
json sentencepiece_file() {
  json vocab = {{"<unk>", 0}, {"<s>", 1}, {"</s>", 2}, {"▁", 3}, {"h", 4}, {"i", 5}, {"▁h", 6}, {"▁hi", 7}};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    vocab[name] = 8 + b;
  }
  return {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", {"▁ h", "▁h i"}}, {"unk_token", "<unk>"}, {"byte_fallback", true}}},
          {"added_tokens",
           {{{"id", 0}, {"content", "<unk>"}, {"special", true}, {"normalized", false}},
            {{"id", 1}, {"content", "<s>"}, {"special", true}, {"normalized", false}},
            {{"id", 2}, {"content", "</s>"}, {"special", true}, {"normalized", false}}}},
          {"normalizer", llama2_normalizer()},
          {"post_processor", bos_template("<s>", 1)},
          {"decoder",
           {{"type", "Sequence"},
            {"decoders",
             {{{"type", "Replace"}, {"pattern", {{"String", "▁"}}}, {"content", " "}},
              {{"type", "ByteFallback"}},
              {{"type", "Fuse"}},
              {{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}}}}}}};
}

TEST(TokenizerJson, SentencePieceStyleWithByteFallback) {
  const auto t = parse(sentencepiece_file());
  // "▁hi▁hi" after the normalizer; 'x' is not in the vocabulary: its byte's token instead.
  const std::vector<int> ids = t->encode("hi hix\n");
  EXPECT_EQ(texts(*t, ids), (Words{"<s>", " hi", " hi", "x", "\n"}));
  EXPECT_EQ(ids[3], 8 + 'x');
  // The text after a special token is normalized on its own: it gains its own '▁'.
  EXPECT_EQ(texts(*t, t->encode("</s>hi")), (Words{"<s>", "</s>", " hi"}));
  EXPECT_EQ(t->encode(""), (std::vector<int>{1}));
  // Half an é is not a character: its bytes are labelled \xNN.
  EXPECT_EQ(texts(*t, t->encode("é")), (Words{"<s>", " ", "\\xC3", "\\xA9"}));
}

TEST(TokenizerJson, UnknownTokenFusedOrNotAndItsAbsenceRefused) {
  json f = {{"model", {{"type", "BPE"}, {"vocab", {{"<unk>", 0}, {"a", 1}}}, {"merges", json::array()}, {"unk_token", "<unk>"}}}};
  EXPECT_EQ(parse(f)->encode("xya"), (std::vector<int>{0, 0, 1}));
  f["model"]["fuse_unk"] = true;
  EXPECT_EQ(parse(f)->encode("xya"), (std::vector<int>{0, 1}));
  f["model"].erase("unk_token");
  EXPECT_THROW(parse(f)->encode("xya"), InputError);
}

TEST(TokenizerJson, AddedTokensLeftmostLongestStripsAndWords) {
  json f = {{"model", {{"type", "BPE"}, {"vocab", byte_level_vocab({})}, {"merges", json::array()}}},
            {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}}},
            {"decoder", {{"type", "ByteLevel"}}},
            {"added_tokens",
             {{{"id", 256}, {"content", "<a>"}, {"special", true}, {"normalized", false}},
              {{"id", 257}, {"content", "<a>b"}, {"special", true}, {"normalized", false}},
              {{"id", 258}, {"content", "[M]"}, {"special", true}, {"normalized", false}, {"lstrip", true}, {"rstrip", true}},
              {{"id", 259}, {"content", "ing"}, {"special", false}, {"normalized", false}, {"single_word", true}}}}};
  const auto t = parse(f);
  EXPECT_EQ(texts(*t, t->encode("x<a>b<a>")), (Words{"x", "<a>b", "<a>"}));
  EXPECT_EQ(texts(*t, t->encode("a  [M]  b")), (Words{"a", "[M]", "b"}));  // the spaces go with [M]
  EXPECT_EQ(texts(*t, t->encode("ing sing")), (Words{"ing", " ", "s", "i", "n", "g"}));  // not inside a word
  // tokenizer_config.json's split_special_tokens leaves special tokens as text.
  EXPECT_EQ(texts(*t, parse(f, {{"split_special_tokens", true}})->encode("<a>")), (Words{"<", "a", ">"}));
}

TEST(TokenizerJson, NormalizedAddedTokensMatchTheNormalizedText) {
  json f = {{"model", {{"type", "BPE"}, {"vocab", {{"x", 0}, {"é", 1}}}, {"merges", json::array()}}},
            {"normalizer", {{"type", "NFC"}}},
            {"added_tokens", {{{"id", 2}, {"content", "e\u0301!"}, {"special", false}, {"normalized", true}}}}};
  // The token's content is normalized as the text is, so "é!" and "e\u0301!" both find it.
  EXPECT_EQ(parse(f)->encode("xé!x"), (std::vector<int>{0, 2, 0}));
  EXPECT_EQ(parse(f)->encode("xe\u0301!"), (std::vector<int>{0, 2}));
}

TEST(TokenizerJson, TokenizerConfigAddsTokensAndLlamaFlags) {
  json f = sentencepiece_file();
  f["model"]["vocab"]["<extra>"] = 300;
  json config = {{"added_tokens_decoder", {{"300", {{"content", "<extra>"}, {"special", true}, {"normalized", false}}}}}};
  EXPECT_EQ(parse(f, config)->encode("<extra>"), (std::vector<int>{1, 300}));
  // transformers' LlamaTokenizerFast: BOS unless add_bos_token is false, EOS when add_eos_token.
  config = {{"tokenizer_class", "LlamaTokenizerFast"}, {"add_eos_token", true}, {"eos_token", "</s>"}};
  EXPECT_EQ(parse(f, config)->encode("hi"), (std::vector<int>{1, 7, 2}));
  config = {{"tokenizer_class", "LlamaTokenizer"}, {"add_bos_token", false}};
  EXPECT_EQ(parse(f, config)->encode("hi"), (std::vector<int>{7}));
  config = {{"added_tokens_decoder", {{"1", {{"content", "<bos>"}}}}}};
  EXPECT_THROW(parse(f, config), InputError);  // contradicts tokenizer.json's token 1
}

TEST(TokenizerJson, LoadsAFolderWithOrWithoutItsConfig) {
  const auto dir = std::filesystem::temp_directory_path() / ("attnlab_tokenizer_json_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "tokenizer.json") << sentencepiece_file().dump();
  EXPECT_EQ(load_tokenizer_json(dir)->encode("hi"), (std::vector<int>{1, 7}));
  std::ofstream(dir / "tokenizer_config.json") << R"({"tokenizer_class": "LlamaTokenizer", "add_bos_token": false})";
  EXPECT_EQ(load_tokenizer_json(dir)->encode("hi"), (std::vector<int>{7}));
  std::ofstream(dir / "tokenizer_config.json") << "{";
  EXPECT_THROW(load_tokenizer_json(dir), InputError);
  std::filesystem::remove_all(dir);
  EXPECT_THROW(load_tokenizer_json(dir), InputError);
}

// --- Refusals: one sentence naming the file and what is wrong ------------------------------------

std::string refusal(const std::string& text, const std::string& config = std::string()) {
  try {
    parse_tokenizer_json(text, config, "tokenizer.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

void expect_refusal(const json& file, std::initializer_list<const char*> words) {
  const std::string msg = refusal(file.dump());
  EXPECT_EQ(msg.rfind("tokenizer.json: ", 0), 0u) << msg;
  for (const char* w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
}

TEST(TokenizerJsonRefusals, OtherModelsAreNamed) {
  expect_refusal({{"model", {{"type", "Unigram"}, {"vocab", json::array()}}}}, {"unsupported model 'Unigram'", "BPE"});
  expect_refusal({{"model", {{"type", "WordPiece"}, {"vocab", json::object()}}}}, {"unsupported model 'WordPiece'"});
}

TEST(TokenizerJsonRefusals, UnknownComponentsAreNamedWithWhere) {
  json f = byte_level_file();
  f["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", {{{"type", "Whitespace"}}}}};
  expect_refusal(f, {"unsupported pre-tokenizer 'Whitespace'", "pre_tokenizer.pretokenizers[0]"});
  f = byte_level_file();
  f["normalizer"] = {{"type", "NFKC"}};
  expect_refusal(f, {"unsupported normalizer 'NFKC'", "(at normalizer)"});
  f = byte_level_file();
  f["post_processor"] = {{"type", "RobertaProcessing"}};
  expect_refusal(f, {"unsupported post-processor 'RobertaProcessing'"});
  f = byte_level_file();
  f["decoder"] = {{"type", "WordPiece"}};
  expect_refusal(f, {"unsupported decoder 'WordPiece'"});
  f["decoder"] = {{"type", "Word\nPiece"}};  // what a file says is quoted on one line
  expect_refusal(f, {"unsupported decoder 'Word\\x0APiece'"});
}

TEST(TokenizerJsonRefusals, MalformedFiles) {
  EXPECT_NE(refusal("{\"model\": ").find("tokenizer.json: not JSON"), std::string::npos);
  EXPECT_NE(refusal("[]").find("tokenizer.json: the file is an array, not an object"), std::string::npos);
  EXPECT_NE(refusal("{}").find("the file has no \"model\""), std::string::npos);
  EXPECT_NE(refusal(byte_level_file().dump(), "[1]").find("tokenizer_config.json: the file is an array"), std::string::npos);
  json f = byte_level_file();
  f["model"]["merges"].push_back("q z");
  expect_refusal(f, {"model.merges[9]", "merges 'q z' but the vocabulary has no token 'qz'"});
  f = byte_level_file();
  f["model"]["merges"].push_back("h e");
  expect_refusal(f, {"model.merges[9]", "repeats the merge 'h e' of model.merges[0]"});
  f = byte_level_file();
  f["model"]["merges"].push_back("a b c");
  expect_refusal(f, {"model.merges[9]", "not two tokens separated by one space"});
  f = byte_level_file();
  f["model"]["vocab"]["he"] = 0;
  expect_refusal(f, {"model.vocab", "gives id 0 to two tokens"});
  f = byte_level_file();
  f["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"Regex", "(unclosed"}}}, {"behavior", "Isolated"}};
  expect_refusal(f, {"pre_tokenizer.pattern.Regex", "does not compile"});
  f["pre_tokenizer"] = {{"type", "Split"}, {"pattern", {{"String", "-"}}}, {"behavior", "Sideways"}};
  expect_refusal(f, {"pre_tokenizer.behavior", "'Sideways'"});
  f = byte_level_file();
  f["model"]["dropout"] = 0.1;
  expect_refusal(f, {"model.dropout", "at random"});
  f = byte_level_file();
  f["model"]["end_of_word_suffix"] = "</w>";
  expect_refusal(f, {"model.end_of_word_suffix"});
  f = byte_level_file();
  f["post_processor"]["processors"][1]["single"].push_back({{"Sequence", {{"id", "B"}, {"type_id", 1}}}});
  expect_refusal(f, {"post_processor.processors[1].single[2].Sequence.id", "'B'"});
  json nested = {{"type", "NFC"}};
  for (int i = 0; i < 20; ++i) nested = {{"type", "Sequence"}, {"normalizers", {nested}}};
  f = byte_level_file();
  f["normalizer"] = nested;
  expect_refusal(f, {"nests Sequences"});
}

// --- The BPE core against GPT-2's loop ------------------------------------------------------------

// GPT-2's published loop: find the lowest-ranked adjacent pair, merge every occurrence of it left
// to right, repeat. O(n²) per word, and the reference for the heap.
std::vector<int> gpt2_loop(std::vector<int> word, const std::map<std::pair<int, int>, std::pair<int, int>>& merges) {
  while (word.size() > 1) {
    int best = INT_MAX, merged = -1;
    std::pair<int, int> pair;
    for (std::size_t i = 0; i + 1 < word.size(); ++i) {
      const auto it = merges.find({word[i], word[i + 1]});
      if (it != merges.end() && it->second.first < best) best = it->second.first, merged = it->second.second, pair = it->first;
    }
    if (merged < 0) break;
    std::vector<int> out;
    for (std::size_t i = 0; i < word.size();) {
      if (i + 1 < word.size() && word[i] == pair.first && word[i + 1] == pair.second) out.push_back(merged), i += 2;
      else out.push_back(word[i++]);
    }
    word = std::move(out);
  }
  return word;
}

TEST(BpeCore, HeapMergesAsGpt2sLoopOnRandomVocabularies) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    std::mt19937 rng(seed);
    BpeModel bpe;
    std::vector<std::string> tokens = {"a", "b", "c", "d"};
    for (int i = 0; i < 4; ++i) bpe.add_token(tokens[static_cast<std::size_t>(i)], i);
    std::map<std::pair<int, int>, std::pair<int, int>> merges;
    // Merges as training makes them: each joins two tokens that exist already, in rank order.
    for (int rank = 0; rank < 40; ++rank) {
      const int a = static_cast<int>(rng() % tokens.size()), b = static_cast<int>(rng() % tokens.size());
      const std::string merged = tokens[static_cast<std::size_t>(a)] + tokens[static_cast<std::size_t>(b)];
      if (merges.count({a, b}) || bpe.id(merged) >= 0) continue;
      bpe.add_token(merged, static_cast<int>(tokens.size()));
      ASSERT_FALSE(bpe.add_merge(tokens[static_cast<std::size_t>(a)], tokens[static_cast<std::size_t>(b)]));
      merges[{a, b}] = {static_cast<int>(merges.size()), static_cast<int>(tokens.size())};
      tokens.push_back(merged);
    }
    for (int w = 0; w < 200; ++w) {
      std::vector<int> word(1 + rng() % 40);
      for (int& s : word) s = static_cast<int>(rng() % 4);
      std::vector<int> heap = word;
      bpe.merge(heap);
      EXPECT_EQ(heap, gpt2_loop(word, merges)) << "seed " << seed << " word " << w;
    }
  }
}

}  // namespace
}  // namespace attnlab::model
