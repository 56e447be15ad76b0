// Exercise 2.3.1's expectations of the scaling demonstration, which every sampler (CPU, GPU) must
// meet at the default d_k values (8, 64, 512, 4096).
#pragma once

#include "engine/lessons/scaling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace attnlab::test {

// Unscaled, the logits' spread grows as √d_k and the largest weight nears 1 (0.95 at d_k = 512, 0.98
// at 4096); scaled by 1/√d_k, the spread stays 1 and the largest weight about 0.32 at every d_k.
inline void expect_exercise_231(const ScalingResult& r) {
  ASSERT_EQ(r.rows.size(), 4u);
  for (const ScalingRow& row : r.rows) {
    SCOPED_TRACE("d_k = " + std::to_string(row.d_k));
    EXPECT_NEAR(row.unscaled_std, std::sqrt(row.d_k), 0.03 * std::sqrt(row.d_k));
    EXPECT_NEAR(row.scaled_std, 1.0, 0.03);
    EXPECT_NEAR(row.scaled_max_prob, 0.32, 0.02);
  }
  EXPECT_NEAR(r.rows[2].unscaled_max_prob, 0.95, 0.015);
  EXPECT_NEAR(r.rows[3].unscaled_max_prob, 0.98, 0.01);
}

}  // namespace attnlab::test
