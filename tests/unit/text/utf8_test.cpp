// Walking UTF-8 (engine/text/utf8.hpp) against RFC 3629's definition: a byte string is one valid
// character exactly when it is the encoding of a Unicode scalar value (U+0000–U+10FFFF, surrogates
// excluded). Every scalar value is encoded and read back, and every byte string of one to three
// bytes, and every four-byte string of the right shape, is counted: as many are accepted as there
// are scalar values of that length, so the accepted strings are exactly the encodings.
#include "engine/text/utf8.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <string>

namespace attnlab {
namespace {

bool scalar_value(char32_t cp) { return cp <= 0x10FFFF && (cp < 0xD800 || cp > 0xDFFF); }

TEST(Utf8, EveryScalarValueIsWrittenAndReadBack) {
  std::array<std::size_t, 5> scalars_of_length{};
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (!scalar_value(cp)) continue;
    std::string s;
    append_utf8(s, cp);
    const std::size_t expected = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    ASSERT_EQ(s.size(), expected) << std::hex << static_cast<std::uint32_t>(cp);
    ASSERT_EQ(utf8_char_length(s, 0), s.size()) << std::hex << static_cast<std::uint32_t>(cp);
    ASSERT_EQ(static_cast<std::uint32_t>(utf8_code_point(s, 0, s.size())), static_cast<std::uint32_t>(cp)) << std::hex << static_cast<std::uint32_t>(cp);
    ASSERT_EQ(invalid_utf8_at(s), std::string::npos) << std::hex << static_cast<std::uint32_t>(cp);
    ++scalars_of_length[s.size()];
  }
  // Every byte string of one to three bytes: as many read as one whole character as there are
  // scalar values of that length, so (the encoding being one to one) only their encodings do.
  std::array<std::size_t, 5> accepted{};
  std::string s;
  for (unsigned len = 1; len <= 3; ++len) {
    s.assign(len, '\0');
    for (unsigned long v = 0; v < (1ul << (8 * len)); ++v) {
      for (unsigned k = 0; k < len; ++k) s[k] = static_cast<char>(v >> (8 * (len - 1 - k)));
      if (utf8_char_length(s, 0) == len) ++accepted[len];
    }
  }
  // Four bytes: a lead byte F0–F4 and three continuation bytes 80–BF, all of them...
  s.assign(4, '\0');
  for (unsigned lead = 0xF0; lead <= 0xF4; ++lead)
    for (unsigned v = 0; v < (1u << 18); ++v) {
      s[0] = static_cast<char>(lead);
      for (unsigned k = 1; k < 4; ++k) s[k] = static_cast<char>(0x80 | ((v >> (6 * (3 - k))) & 0x3F));
      if (utf8_char_length(s, 0) == 4) ++accepted[4];
    }
  for (std::size_t len = 1; len <= 4; ++len) EXPECT_EQ(accepted[len], scalars_of_length[len]) << len << " bytes";
  // ...and any other four bytes are refused.
  std::mt19937 rng(29);
  for (int trial = 0; trial < 200000; ++trial) {
    for (char& c : s) c = static_cast<char>(rng());
    const auto b = [&](int k) { return static_cast<unsigned char>(s[static_cast<std::size_t>(k)]); };
    const bool shaped = b(0) >= 0xF0 && b(0) <= 0xF4 && (b(1) & 0xC0) == 0x80 && (b(2) & 0xC0) == 0x80 && (b(3) & 0xC0) == 0x80;
    if (!shaped) {
      ASSERT_NE(utf8_char_length(s, 0), 4u) << trial;
    }
  }
}

TEST(Utf8, ACharacterCutShortIsNotRead) {
  for (const std::string whole : {"é", "東", "😀"})
    for (std::size_t cut = 1; cut < whole.size(); ++cut) {
      EXPECT_EQ(utf8_char_length(whole.substr(0, cut), 0), 0u) << whole << " cut to " << cut;
      EXPECT_EQ(invalid_utf8_at("ab" + whole.substr(0, cut)), 2u) << whole << " cut to " << cut;
    }
}

TEST(Utf8, InvalidTextIsFoundAtItsFirstBadByte) {
  EXPECT_EQ(invalid_utf8_at(""), std::string::npos);
  EXPECT_EQ(invalid_utf8_at("café 東京"), std::string::npos);
  EXPECT_EQ(invalid_utf8_at("caf\xe9"), 3u);           // Latin-1, not UTF-8
  EXPECT_EQ(invalid_utf8_at("a\xc0\x80"), 1u);         // an overlong NUL
  EXPECT_EQ(invalid_utf8_at("é\xed\xa0\x80"), 2u);     // a surrogate
  EXPECT_EQ(invalid_utf8_at("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
}

TEST(Utf8, PrintableTextShowsBadBytesAsEscapes) {
  EXPECT_EQ(printable_utf8("a\xf0\x9f"), "a\\xF0\\x9F");
  EXPECT_EQ(printable_utf8("é"), "é");
  EXPECT_EQ(printable_utf8("\xff東\xc0"), "\\xFF東\\xC0");
}

}  // namespace
}  // namespace attnlab
