// Masks: the CLI form, validation against the problem size, dense grids and visible ranges.
#include "engine/attention/mask.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attnlab {
namespace {

using test::error_of;

TEST(MaskSpec, ParsesEveryCliForm) {
  EXPECT_EQ(parse_mask_spec("none").kind, MaskKind::None);
  EXPECT_EQ(parse_mask_spec("causal").kind, MaskKind::Causal);
  Mask m = parse_mask_spec("padding:3");
  EXPECT_EQ(m.kind, MaskKind::Padding);
  EXPECT_EQ(m.param, 3);
  m = parse_mask_spec("prefix:0");
  EXPECT_EQ(m.kind, MaskKind::Prefix);
  EXPECT_EQ(m.param, 0);
  m = parse_mask_spec("window:12");
  EXPECT_EQ(m.kind, MaskKind::Window);
  EXPECT_EQ(m.param, 12);
  for (const char* spec : {"none", "causal", "padding:3", "prefix:2", "window:7"}) {
    EXPECT_EQ(mask_spec(parse_mask_spec(spec)), spec);
  }
}

TEST(MaskSpec, RejectsBadFormsNamingTheFlag) {
  for (const char* spec : {"", "diagonal", "padding", "padding:", "padding:x", "padding:3x", "padding:-1",
                           "window:1.5", "causal:2", "none:0", "custom", "prefix:99999999999", "Causal"}) {
    const std::string msg = error_of([&] { parse_mask_spec(spec, "--mask"); });
    EXPECT_EQ(msg.rfind("--mask: ", 0), 0u) << "spec '" << spec << "' gave: " << msg;
  }
  EXPECT_NE(error_of([] { parse_mask_spec("padding:-1"); }).find("negative"), std::string::npos);
  EXPECT_NE(error_of([] { parse_mask_spec("diagonal"); }).find("unknown mask kind 'diagonal'"), std::string::npos);
}

TEST(MaskKindNames, RoundTrip) {
  for (MaskKind k : test::all_mask_kinds()) EXPECT_EQ(parse_mask_kind(mask_kind_name(k), "x"), k);
  EXPECT_THROW(parse_mask_kind("triangular", "mask.kind"), InputError);
}

TEST(MaskValidation, ParametersMustFitTheProblem) {
  Mask m;
  m.kind = MaskKind::Padding;
  m.param = 5;
  EXPECT_NO_THROW(validate_mask(m, 3, 5, "mask"));
  m.param = 6;
  EXPECT_NE(error_of([&] { validate_mask(m, 3, 5, "mask"); }).find("larger than the number of keys (5)"), std::string::npos);
  m.param = -2;
  EXPECT_NE(error_of([&] { validate_mask(m, 3, 5, "mask"); }).find("negative"), std::string::npos);
  m.kind = MaskKind::Prefix;
  m.param = 6;
  EXPECT_THROW(validate_mask(m, 9, 5, "mask"), InputError);
  m.kind = MaskKind::Window;
  m.param = 9;
  EXPECT_NO_THROW(validate_mask(m, 9, 5, "mask"));
  m.param = 10;
  EXPECT_THROW(validate_mask(m, 9, 5, "mask"), InputError);
  m.kind = MaskKind::Causal;
  EXPECT_NO_THROW(validate_mask(m, 9, 5, "mask"));
}

TEST(MaskValidation, CustomGridShapeAndValues) {
  Mask m;
  m.kind = MaskKind::Custom;
  m.blocked = BlockGrid::Zero(2, 3);
  EXPECT_NO_THROW(validate_mask(m, 2, 3, "mask"));
  EXPECT_NE(error_of([&] { validate_mask(m, 3, 2, "mask"); }).find("custom mask is 2×3 but the scores are 3×2"),
            std::string::npos);
  m.blocked(1, 2) = 2;
  EXPECT_NE(error_of([&] { validate_mask(m, 2, 3, "mask"); }).find("[1][2] is not 0 or 1"), std::string::npos);
}

TEST(MaskGrid, MatchesTheDefinitions) {
  for (int n = 1; n <= 7; ++n) {
    for (int m = 1; m <= 7; ++m) {
      for (int param = 0; param <= std::max(n, m); ++param) {
        for (MaskKind kind : {MaskKind::None, MaskKind::Causal, MaskKind::Padding, MaskKind::Prefix, MaskKind::Window}) {
          Mask mask;
          mask.kind = kind;
          mask.param = param;
          const BlockGrid g = mask_grid(mask, n, m);
          for (int i = 0; i < n; ++i) {
            Eigen::Index first = -1, last = -1;
            mask.visible_range(i, m, first, last);
            for (int j = 0; j < m; ++j) {
              bool expected = false;
              switch (kind) {
                case MaskKind::None: expected = false; break;
                case MaskKind::Causal: expected = j > i; break;
                case MaskKind::Padding: expected = j >= param; break;
                case MaskKind::Prefix: expected = !(j < param || j <= i); break;
                case MaskKind::Window: expected = !(j <= i && i - j < param); break;
                default: break;
              }
              EXPECT_EQ(g(i, j) != 0, expected) << mask_spec(mask) << " n=" << n << " m=" << m << " (" << i << "," << j << ")";
              // visible_range is exactly the set of visible keys.
              EXPECT_EQ(j >= first && j < last, !expected) << mask_spec(mask) << " row " << i << " key " << j;
            }
            EXPECT_LE(first, last);
          }
          EXPECT_EQ(mask.is_padding_row(n - 1), kind == MaskKind::Padding && n - 1 >= param);
        }
      }
    }
  }
}

TEST(MaskGrid, CustomIsTheGrid) {
  Mask mask;
  mask.kind = MaskKind::Custom;
  mask.blocked = BlockGrid{{0, 1, 0}, {1, 1, 1}};
  EXPECT_EQ(mask_grid(mask, 2, 3), mask.blocked);
  EXPECT_EQ(mask_spec(mask), "custom");
}

}  // namespace
}  // namespace attnlab
