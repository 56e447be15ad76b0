// The named uses of engine/text/text_format.hpp that replaced printf formats across the code: each
// against the printf format it replaced, on values that reach every branch (signs, zeros, the
// thresholds, infinities, NaN), so that the strings the CLI and the GUI print stay byte for byte.
#include "engine/text/text_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

namespace attnlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// What printf writes for `format` and one double (the reference each use is held to).
std::string printed(const char* format, double v) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

const std::vector<double>& values() {
  static const std::vector<double> kValues = {0.0, -0.0, 1.0, -1.0, 0.5, 1e-5, -4e-5, 9.99996e-5, 1e-4, 5e-4,
                                              1e-3, 0.12345, 2.5, 9.96, 10.0, 99.95, 123.456, 999999.0, 1e6, -1e6,
                                              1.23456789e7, 3.4e38, kInf, -kInf, std::nan("")};
  return kValues;
}

TEST(TextFormat, FixedDecimalsWithAWidthIsPrintfs) {
  for (const double v : values()) {
    EXPECT_EQ(fixed_decimals(v, 3, 10), printed("%10.3f", v)) << v;
    EXPECT_EQ(fixed_decimals(v, 2, 8), printed("%8.2f", v)) << v;
    EXPECT_EQ(fixed_decimals(v, 4), printed("%.4f", v)) << v;
    EXPECT_EQ(fixed_decimals(v, 0, 3), printed("%3.0f", v)) << v;
  }
}

TEST(TextFormat, PercentIsPrintfsWithItsSign) {
  for (const double v : values()) {
    EXPECT_EQ(percent(v, 1, 5), printed("%5.1f%%", v)) << v;
    EXPECT_EQ(percent(v, 0, 3), printed("%3.0f%%", v)) << v;
    EXPECT_EQ(percent(v, 0), printed("%.0f%%", v)) << v;
  }
  EXPECT_EQ(percent(73.14, 1), "73.1%");
}

TEST(TextFormat, SizesInOneUnit) {
  EXPECT_EQ(bytes_in(1536, ByteUnit::KiB, 1), "1.5 KiB");
  EXPECT_EQ(bytes_in(147456, ByteUnit::KiB, 0), "144 KiB");
  EXPECT_EQ(bytes_in(3 << 20, ByteUnit::MiB, 1), "3.0 MiB");
  EXPECT_EQ(bytes_in(3.0 * (1 << 29), ByteUnit::GiB, 2), "1.50 GiB");
  // The KV-cache lesson's own helpers, which these replace: bytes / 1024 and / 1024³ by printf.
  for (const double bytes : {0.0, 1000.0, 10239.0, 10240.0, 1.5e9, 7.3e10}) {
    EXPECT_EQ(bytes_in(bytes, ByteUnit::KiB, 1), printed("%.1f KiB", bytes / 1024)) << bytes;
    EXPECT_EQ(bytes_in(bytes, ByteUnit::GiB, 2), printed("%.2f GiB", bytes / (1024.0 * 1024 * 1024))) << bytes;
  }
}

TEST(TextFormat, MinusInfinityFollowsTheFont) {
  EXPECT_STREQ(minus_infinity(true), "−∞");
  EXPECT_STREQ(minus_infinity(false), "-inf");
}

TEST(TextFormat, WidgetFormatsAreWhatImGuiIsGiven) {
  EXPECT_EQ(widget_decimals(3), "%.3f");
  EXPECT_EQ(widget_significant(4), "%.4g");
  EXPECT_EQ(widget_significant(3, "T = "), "T = %.3g");
  EXPECT_EQ(widget_decimals(2, "temperature T = "), "temperature T = %.2f");
  EXPECT_EQ(widget_decimals(0, "100% "), "100%% %.0f");  // ImGui would read a bare '%' as a conversion
  EXPECT_EQ(printed(widget_significant(3, "T = ").c_str(), 0.0512), "T = 0.0512");
}

TEST(TextFormat, ShortestDecimalsAreWhatToCharsWrites) {
  EXPECT_EQ(shortest_decimals(0.1f), "0.1");
  EXPECT_EQ(shortest_decimals(0.1), "0.1");
  EXPECT_EQ(shortest_decimals(-0.0f), "-0");  // unlike float_json's "-0.0": the export's .json as it was
  EXPECT_EQ(shortest_decimals(1e30f), "1e+30");
  EXPECT_EQ(shortest_decimals(12.345678901234567), "12.345678901234567");
  std::string out = "[";
  append_shortest_decimals(out, 2.5f);
  EXPECT_EQ(out, "[2.5");
}

// The lesson text's rule, as engine/io/lesson_template.cpp wrote it with printf.
std::string lesson_text_reference(double v) {
  if (!std::isfinite(v)) return hand_number(v);
  const double a = std::fabs(v);
  std::string s = a != 0 && (a >= 1e6 || a < 1e-4) ? printed("%.3g", v) : printed("%.4f", v);
  const size_t dot = s.find('.');
  if (dot == std::string::npos || s.find('e') != std::string::npos) return s;
  if (s.find_first_not_of('0', dot + 1) != std::string::npos) return s;
  s.erase(dot);
  return s == "-0" ? "0" : s;
}

TEST(TextFormat, LessonTextAndReportUsesAreTheirOldRules) {
  for (const double v : values()) {
    EXPECT_EQ(format_number(v, NumberUse::LessonText), lesson_text_reference(v)) << v;
    const double a = std::fabs(v);
    EXPECT_EQ(format_number(v, NumberUse::LessonReport), printed(a != 0 && (a >= 1e6 || a < 1e-3) ? "%.4g" : "%.4f", v)) << v;
  }
  EXPECT_EQ(format_number(1.0, NumberUse::LessonText), "1");
  EXPECT_EQ(format_number(0.25, NumberUse::LessonText), "0.2500");
  EXPECT_EQ(format_number(1234567.0, NumberUse::LessonReport), "1.235e+06");
}

TEST(TextFormat, UnsignedZeroDropsOnlyARoundedZerosSign) {
  EXPECT_EQ(unsigned_zero("-0"), "0");
  EXPECT_EQ(unsigned_zero("-0.000"), "0.000");
  EXPECT_EQ(unsigned_zero("-0.001"), "-0.001");
  EXPECT_EQ(unsigned_zero("-1e-05"), "-1e-05");
  EXPECT_EQ(unsigned_zero(""), "");
}

}  // namespace
}  // namespace attnlab
