// Model files (docs/MODELS.md): safetensors headers byte by byte, half and bfloat16 conversion,
// config.json, the tokenizer's own rules, and the head-kind detector on patterns of known kind.
#include "engine/model/bpe_tokenizer.hpp"
#include "engine/model/model_config.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/language_model.hpp"
#include "engine/model/safetensors.hpp"
#include "engine/model/tokenizer/unicode.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

namespace attnlab::model {
namespace {

// A safetensors file from its header text and data, written from the format's definition.
std::string file_of(const std::string& header, const std::string& data) {
  std::string out(8, '\0');
  std::uint64_t len = header.size();
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((len >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string error_of(const std::string& bytes) {
  try {
    parse_safetensors(bytes, "m.safetensors");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(Safetensors, ReadsTensorsAndMetadata) {
  const std::string h =
      R"({"__metadata__": {"format": "pt"}, "b": {"dtype": "F16", "shape": [2], "data_offsets": [8, 12]},)"
      R"( "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  const auto hdr = parse_safetensors(file_of(h, std::string(12, '\0')), "m");
  ASSERT_EQ(hdr.tensors.size(), 2u);
  EXPECT_EQ(hdr.tensors.at("b").type, TensorType::F16);
  EXPECT_EQ(hdr.tensors.at("a").shape, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(hdr.metadata.at("format"), "pt");
  EXPECT_EQ(hdr.data_offset, 8 + h.size());
}

TEST(Safetensors, RefusesEveryMalformedHeaderWithASentence) {
  const std::string ok = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}})";
  EXPECT_NE(error_of("abc").find("truncated"), std::string::npos);
  std::string huge = file_of(ok, std::string(8, '\0'));
  huge[3] = 0x7f;  // a header length of about 2 GB
  EXPECT_NE(error_of(huge).find("100 MB"), std::string::npos);
  std::string past = file_of(ok, "");
  past[0] = static_cast<char>(past[0] + 1);
  EXPECT_NE(error_of(past).find("past the end"), std::string::npos);
  EXPECT_NE(error_of(file_of("{nope", "")).find("not JSON"), std::string::npos);
  EXPECT_NE(error_of(file_of("[1]", "")).find("JSON object"), std::string::npos);
  EXPECT_NE(error_of(file_of(R"({"a": {"dtype": "I8", "shape": [8], "data_offsets": [0, 8]}})", std::string(8, '\0'))).find("'I8'"),
            std::string::npos);
  EXPECT_NE(error_of(file_of(R"({"a": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}})", std::string(8, '\0'))).find("need 12"),
            std::string::npos);
  EXPECT_NE(error_of(file_of(R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [8, 0]}})", std::string(8, '\0'))).find("end before"),
            std::string::npos);
  EXPECT_NE(error_of(file_of(R"({"a": {"dtype": "F32", "shape": [-2], "data_offsets": [0, 8]}})", std::string(8, '\0'))).find("shape"),
            std::string::npos);
  const std::string two = R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})";
  EXPECT_NE(error_of(file_of(two, std::string(12, '\0'))).find("overlaps"), std::string::npos);
  const std::string gap = R"({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "b": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}})";
  EXPECT_NE(error_of(file_of(gap, std::string(12, '\0'))).find("gap of 4 bytes"), std::string::npos);
  // The bytes counted from the file's start: the 8-byte length, the header, then the data.
  const std::string truncated = file_of(ok, std::string(4, '\0'));
  EXPECT_NE(error_of(truncated).find("runs past the end of the file (its data ends at byte " + std::to_string(8 + ok.size() + 8) + " of " +
                                     std::to_string(truncated.size()) + ";"),
            std::string::npos)
      << error_of(truncated);
  EXPECT_NE(error_of(file_of(ok, std::string(9, '\0'))).find("1 bytes after the last tensor"), std::string::npos);
  // Dimensions whose product would wrap 64 bits.
  EXPECT_NE(error_of(file_of(R"({"a": {"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 8]}})", "")).find("larger"),
            std::string::npos);
}

TEST(Safetensors, HalfAndBfloat16ConvertExactly) {
  EXPECT_EQ(half_to_float(0x3c00), 1.0f);
  EXPECT_EQ(half_to_float(0xc000), -2.0f);
  EXPECT_EQ(half_to_float(0x7bff), 65504.0f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal
  EXPECT_TRUE(std::isinf(half_to_float(0x7c00)));
  EXPECT_TRUE(std::isnan(half_to_float(0x7e00)));
  EXPECT_EQ(bfloat16_to_float(0x3f80), 1.0f);
  // Every half survives float and back; rounding of floats between halves is to nearest even.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const float f = half_to_float(static_cast<std::uint16_t>(h));
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), h) << h;
  }
  EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // a tie rounds to even
  EXPECT_EQ(float_to_half(1e6f), 0x7c00);
}

TEST(Gpt2Config, ChecksTheSizes) {
  const auto c = parse_model_config(R"({"n_layer": 12, "n_head": 12, "n_embd": 768, "n_positions": 1024, "vocab_size": 50257,
                                        "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"})",
                                    "config.json");
  EXPECT_EQ(c.family, Family::Gpt2);
  EXPECT_EQ(c.d_head, 64);
  EXPECT_EQ(parameter_count(c), 124439808);  // GPT-2 small, as Hugging Face counts it
  const auto err = [](const char* text) {
    try {
      parse_model_config(text, "config.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(err(R"({"n_layer": 2, "n_head": 5, "n_embd": 32, "n_positions": 8, "vocab_size": 9})").find("not divisible"), std::string::npos);
  EXPECT_NE(err(R"({"n_head": 4, "n_embd": 32, "n_positions": 8, "vocab_size": 9})").find("\"n_layer\" is missing"), std::string::npos);
  EXPECT_NE(err(R"({"n_layer": 0, "n_head": 4, "n_embd": 32, "n_positions": 8, "vocab_size": 9})").find("n_layer"), std::string::npos);
  EXPECT_NE(err("[").find("not JSON"), std::string::npos);
}

TEST(Tokenizer, PretokenizerSplitsAsGpt2Does) {
  EXPECT_EQ(pretokenize("Hello world"), (std::vector<std::string>{"Hello", " world"}));
  EXPECT_EQ(pretokenize("I'll  go"), (std::vector<std::string>{"I", "'ll", " ", " go"}));
  EXPECT_EQ(pretokenize("a1 23!!"), (std::vector<std::string>{"a", "1", " 23", "!!"}));
  EXPECT_EQ(pretokenize("café 漢字"), (std::vector<std::string>{"café", " 漢字"}));
  EXPECT_THROW(pretokenize("bad \xff byte"), InputError);
}

// How a token reads on one line (chips, maps, a lifted head's labels, the text report): leading
// spaces as "·", a line break as "↵", a tab as "⇥", other control characters as \xNN; the rest,
// inner spaces and the \xNN of a byte that starts no character included, as it is.
TEST(Tokenizer, TokenLabelsReadOnOneLine) {
  EXPECT_EQ(token_label(" world"), "·world");
  EXPECT_EQ(token_label("   x y"), "···x y");
  EXPECT_EQ(token_label("\n"), "↵");
  EXPECT_EQ(token_label(" \n\n"), "·↵↵");
  EXPECT_EQ(token_label("\tdef"), "⇥def");
  EXPECT_EQ(token_label(std::string("a\0b\x10\r\x7f", 6)), "a\\x00b\\x10\\x0D\\x7F");
  EXPECT_EQ(token_label("\\xC3"), "\\xC3");
  EXPECT_EQ(token_label("café"), "café");
  EXPECT_EQ(token_label(""), "");
  // Every byte string as a tokenizer shows it (printable_utf8): the label is valid UTF-8, has no
  // control character and so stays on one line, and is empty only for an empty token.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 2000; ++trial) {
    std::string bytes(static_cast<size_t>(rng() % 6), '\0');
    for (char& c : bytes) c = static_cast<char>(rng() % 4 == 0 ? rng() % 0x21 : rng() % 256);
    const std::string label = token_label(printable_utf8(bytes));
    EXPECT_NO_THROW(check_utf8(label)) << trial;
    EXPECT_TRUE(std::none_of(label.begin(), label.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        << trial;
    EXPECT_EQ(label.empty(), bytes.empty()) << trial;
  }
}

TEST(Tokenizer, SymbolsOfAToyModel) {
  const auto t = BpeTokenizer::parse_symbols(R"({"0": 0, "1": 1, "2": 2})", "vocab.json");
  EXPECT_EQ(t.encode(" 2 0  1 "), (std::vector<int>{2, 0, 1}));
  EXPECT_THROW(t.encode("3"), InputError);
  EXPECT_THROW(BpeTokenizer::parse_symbols(R"({"0": 0, "1": 0})", "vocab.json"), InputError);
  EXPECT_THROW(BpeTokenizer::parse_symbols(R"({"0": 5})", "vocab.json"), InputError);
}

// A causal pattern with weight `w` on one key chosen per row, the rest spread evenly.
Matrix pattern(int n, double w, const std::function<int(int)>& key) {
  Matrix A = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    const int k = key(i);
    for (int j = 0; j <= i; ++j) A(i, j) = static_cast<float>(i == 0 ? 1.0 : (1 - w) / i);
    if (i > 0) A(i, k) = static_cast<float>(w + (A(i, k) - (1 - w) / i));
    if (i > 0) {
      const double s = A.row(i).sum();
      A.row(i) /= static_cast<float>(s);
    }
  }
  return A;
}

TEST(HeadKinds, NamesEachPatternAndItsScore) {
  const int n = 16;
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i % 8;  // the text repeats after 8 tokens
  const auto prev = classify_head(pattern(n, 0.9, [](int i) { return i - 1; }), ids);
  EXPECT_EQ(prev.kind, HeadKind::PreviousToken);
  EXPECT_GT(prev.score, 0.8);
  EXPECT_EQ(classify_head(pattern(n, 0.9, [](int) { return 0; }), ids).kind, HeadKind::FirstToken);
  EXPECT_EQ(classify_head(pattern(n, 0.9, [](int i) { return i; }), ids).kind, HeadKind::Self);
  // Induction: on the second copy, attend to the token after this one's first occurrence.
  const auto ind = classify_head(pattern(n, 0.9, [](int i) { return i >= 8 ? i - 7 : 0; }), ids);
  EXPECT_EQ(ind.kind, HeadKind::Induction);
  EXPECT_EQ(ind.scores.induction_rows, 8);
  Matrix uniform = Matrix::Zero(n, n);
  for (int i = 0; i < n; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
  const auto broad = classify_head(uniform, ids);
  EXPECT_EQ(broad.kind, HeadKind::Broad);
  EXPECT_NEAR(broad.score, 1.0, 1e-5);
  // Half the weight on the previous token is still above the threshold (0.4).
  EXPECT_EQ(classify_head(pattern(n, 0.5, [](int i) { return i - 1; }), ids).kind, HeadKind::PreviousToken);
  // A 1-token text has nothing to decide.
  EXPECT_EQ(classify_head(Matrix::Ones(1, 1), {3}).kind, HeadKind::Mixed);
}

// A kind is named by how far its score is above what even weights score on the same text: on a short
// text even weights already score high, and a random model's heads crossed 0.4 there (the dry run's
// "induction 0.47" on a random model).
TEST(HeadKinds, AScoreCountsFromWhatEvenWeightsScoreOnTheSameText) {
  // Chance, by hand: even weights give row i 1 / (i + 1) on each key.
  const std::vector<int> short_text = {5, 6, 5, 6};  // a b a b: rows 2 and 3 repeat (keys 1 and 2)
  Matrix even = Matrix::Zero(4, 4);
  for (int i = 0; i < 4; ++i) even.row(i).head(i + 1).setConstant(1.0f / static_cast<float>(i + 1));
  const HeadScores c = score_head(even, token_repeats(short_text));
  EXPECT_NEAR(c.chance.previous_token, (1 / 2.0 + 1 / 3.0 + 1 / 4.0) / 3, 1e-12);
  EXPECT_NEAR(c.chance.first_token, (1 + 1 / 2.0 + 1 / 3.0 + 1 / 4.0) / 4, 1e-12);
  EXPECT_NEAR(c.chance.self, (1 / 2.0 + 1 / 3.0 + 1 / 4.0) / 3, 1e-12);
  EXPECT_NEAR(c.chance.induction, (1 / 3.0 + 1 / 4.0) / 2, 1e-12);
  EXPECT_NEAR(c.induction, c.chance.induction, 1e-6) << "even weights score exactly chance";
  EXPECT_EQ(classify_head(even, short_text).kind, HeadKind::Broad);
  // A little more than even on the induction cells: 0.47, past the old 0.4 but only a quarter of the
  // way from chance (0.29) to 1. No kind.
  Matrix weak = even;
  weak.row(2) << 0.2f, 0.5f, 0.3f, 0.0f;
  weak.row(3) << 0.2f, 0.15f, 0.44f, 0.21f;
  const HeadVerdict v = classify_head(weak, short_text);
  EXPECT_NEAR(v.scores.induction, 0.47, 1e-6);
  EXPECT_LT(above_chance(v.scores.induction, v.scores.chance.induction), kPatternThreshold);
  EXPECT_NE(v.kind, HeadKind::Induction);
  // The same weight on the induction cells of a long text, where chance is small, names it.
  const int n = 40;
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[static_cast<std::size_t>(i)] = i % 20;
  const HeadVerdict long_text = classify_head(pattern(n, 0.47, [](int i) { return i >= 20 ? i - 19 : 0; }), ids);
  EXPECT_LT(long_text.scores.chance.induction, 0.05);
  EXPECT_EQ(long_text.kind, HeadKind::Induction);
  EXPECT_NEAR(long_text.score, long_text.scores.induction, 0);
  // A pattern exactly at the threshold's distance from chance is named; just under it, not.
  EXPECT_NEAR(above_chance(0.29 + 0.4 * 0.71, 0.29), 0.4, 1e-12);
  EXPECT_EQ(above_chance(0.2, 0.29), 0.0);
  EXPECT_EQ(above_chance(1.0, 1.0), 0.0);
}

TEST(HeadKinds, SpreadScoreIsTheMeanEntropyInDoubleForEveryRowLength) {
  // Rows of every length past the sixteen-lane blocks, with exact zeros, subnormal weights and
  // one-hot rows among softmax-like ones: the float logarithms (engine/cpu/log_float.hpp) against
  // libm's in double, over the same weights.
  std::mt19937 rng(5);
  std::normal_distribution<double> score(0.0, 4.0);
  for (const int n : {2, 17, 40, 100}) {
    Matrix A = Matrix::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j <= i; ++j) sum += A(i, j) = static_cast<float>(std::exp(score(rng)));
      for (int j = 0; j <= i; ++j) A(i, j) = static_cast<float>(A(i, j) / sum);
      if (i % 5 == 1) A(i, 0) = 0.0f;
      if (i % 7 == 2) A(i, i) = 1e-40f;  // subnormal
      if (i % 11 == 3) A.row(i).head(i + 1).setZero(), A(i, i / 2) = 1.0f;
    }
    double broad = 0;
    for (int i = 1; i < n; ++i) {
      double h = 0;
      for (int j = 0; j <= i; ++j) {
        const double a = A(i, j);
        if (a > 0) h -= a * std::log(a);
      }
      broad += h / std::log(static_cast<double>(i + 1));
    }
    broad /= n - 1;
    // A few float roundings of each a·ln a, relative to the terms' own size (≤ 1/e each).
    EXPECT_NEAR(score_head(A, token_repeats(std::vector<int>(static_cast<std::size_t>(n), 0))).broad, broad,
                8 * std::numeric_limits<float>::epsilon()) << "n = " << n;
  }
}

TEST(HeadKinds, ScoresAreTheMeanWeightOnThePatternsCellsOverTheRowsItCovers) {
  // TransformerLens's detection patterns, written out by hand for "a b a a c b": previous-token
  // (i, i − 1) on rows 1 … 5; first-token (i, 0) on every row; induction (i, j + 1) for each
  // j < i with the same token: row 2 → 1, row 3 → 1, 3 (its own key: the token before it is
  // "a" too), row 5 → 2.
  const std::vector<int> ids = {0, 1, 0, 0, 2, 1};
  const TokenRepeats r = token_repeats(ids);
  using Cells = std::vector<std::pair<int, int>>;
  EXPECT_EQ(pattern_cells(HeadKind::PreviousToken, r), (Cells{{1, 0}, {2, 1}, {3, 2}, {4, 3}, {5, 4}}));
  EXPECT_EQ(pattern_cells(HeadKind::FirstToken, r), (Cells{{0, 0}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}}));
  EXPECT_EQ(pattern_cells(HeadKind::Induction, r), (Cells{{2, 1}, {3, 1}, {3, 3}, {5, 2}}));
  EXPECT_TRUE(pattern_cells(HeadKind::Broad, r).empty());
  // A causal head with seeded random weights: each score against the sum written out.
  std::mt19937 rng(35);
  std::uniform_real_distribution<float> u(0.05f, 1.0f);
  Matrix A = Matrix::Zero(6, 6);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j <= i; ++j) A(i, j) = u(rng);
    A.row(i) /= A.row(i).sum();
  }
  const HeadScores s = score_head(A, r);
  EXPECT_NEAR(s.previous_token, (A(1, 0) + A(2, 1) + A(3, 2) + A(4, 3) + A(5, 4)) / 5, 1e-6);
  EXPECT_NEAR(s.first_token, (1 + A(1, 0) + A(2, 0) + A(3, 0) + A(4, 0) + A(5, 0)) / 6, 1e-6);  // row 0 counts
  EXPECT_NEAR(s.self, (A(1, 1) + A(2, 2) + A(3, 3) + A(4, 4) + A(5, 5)) / 5, 1e-6);
  EXPECT_EQ(s.induction_rows, 3);
  EXPECT_NEAR(s.induction, (A(2, 1) + A(3, 1) + A(3, 3) + A(5, 2)) / 3, 1e-6);
  // The verdict names the pattern furthest above its chance, even when that is too little to name
  // the head; its score is that pattern's own.
  const HeadVerdict v = classify_head(A, r);
  const double lifts[] = {above_chance(s.induction, s.chance.induction), above_chance(s.previous_token, s.chance.previous_token),
                          above_chance(s.first_token, s.chance.first_token), above_chance(s.self, s.chance.self)};
  const double scores[] = {s.induction, s.previous_token, s.first_token, s.self};
  const auto best = std::max_element(std::begin(lifts), std::end(lifts)) - std::begin(lifts);
  const HeadKind order[] = {HeadKind::Induction, HeadKind::PreviousToken, HeadKind::FirstToken, HeadKind::Self};
  EXPECT_EQ(v.pattern, order[best]);
  if (v.kind != HeadKind::Broad) {
    EXPECT_EQ(v.score, scores[best]);
  }
}

}  // namespace
}  // namespace attnlab::model
