// ClockLog (engine/attention/bench.hpp): what `attnlab bench` says of the card's clock.
#include "engine/attention/bench.hpp"

#include <gtest/gtest.h>

namespace attnlab {
namespace {

TEST(ClockLog, EmptyWithoutSamplesOrATopClock) {
  EXPECT_TRUE(ClockLog{}.empty());
  EXPECT_FALSE(ClockLog{}.low());
  EXPECT_TRUE((ClockLog{{1980, 1980}, 0}).empty());
  EXPECT_FALSE((ClockLog{{1980, 1980}, 0}).low());
}

TEST(ClockLog, LowWhenMostSamplesAreBelowNinetyPercentOfTheTop) {
  // The dense bench's card before its matrices stayed on it: idle clocks between bursts.
  const ClockLog idle{{345, 345, 975, 1980, 345, 810, 1755}, 1980};
  EXPECT_EQ(idle.median(), 810);
  EXPECT_TRUE(idle.low());
  // A card at its top clock, bar one sample as the work began.
  const ClockLog busy{{1980, 1980, 1965, 1410, 1980}, 1980};
  EXPECT_EQ(busy.median(), 1980);
  EXPECT_FALSE(busy.low());
  // The boundary: 90% of the top is not low.
  EXPECT_FALSE((ClockLog{{1782}, 1980}).low());
  EXPECT_TRUE((ClockLog{{1781}, 1980}).low());
}

}  // namespace
}  // namespace attnlab
