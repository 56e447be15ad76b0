// CausalWeights (engine/model/causal_weights.hpp): the stored rows against the n × m matrix they
// stand for, after cached positions, appended and cut as a CachedSequence grows and is edited.
#include "engine/model/causal_weights.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace attnlab::model {
namespace {

// Cell (i, j) of a recognizable matrix: distinct in every visible cell.
float cell(std::int64_t i, std::int64_t j) { return static_cast<float>(1000 * i + j + 1); }

CausalWeights filled(std::int64_t rows, std::int64_t start) {
  CausalWeights w(rows, start);
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < w.row_length(i); ++j) w.row(i)[j] = cell(start + i, j);
  }
  return w;
}

TEST(CausalWeights, RowsHoldTheVisibleKeysAndTheRestReadsZero) {
  for (const std::int64_t start : {0, 1, 7}) {
    SCOPED_TRACE("start " + std::to_string(start));
    const CausalWeights w = filled(5, start);
    ASSERT_EQ(w.rows(), 5);
    ASSERT_EQ(w.cols(), start + 5);
    const Matrix d = w.dense();
    ASSERT_EQ(d.rows(), 5);
    ASSERT_EQ(d.cols(), start + 5);
    for (std::int64_t i = 0; i < 5; ++i) {
      EXPECT_EQ(w.row_length(i), start + i + 1);
      for (std::int64_t j = 0; j < w.cols(); ++j) {
        const float want = j <= start + i ? cell(start + i, j) : 0.0f;
        EXPECT_EQ(w(i, j), want) << i << ", " << j;
        EXPECT_EQ(d(i, j), want) << i << ", " << j;
      }
    }
  }
  EXPECT_TRUE(CausalWeights().empty());
  EXPECT_EQ(CausalWeights().dense().size(), 0);
}

// A sequence run in pieces (0 … 3, then 4, then 5 … 8) holds what one run over all of it holds;
// cut back and run again, it still does.
TEST(CausalWeights, AppendedPiecesAreTheWholeRunAndCuttingKeepsThePrefix) {
  CausalWeights grown;
  grown.append(filled(4, 0));
  grown.append(filled(1, 4));
  grown.append(filled(4, 5));
  const CausalWeights whole = filled(9, 0);
  EXPECT_EQ(max_abs_difference(grown, whole), 0.0);
  grown.truncate(3);
  EXPECT_EQ(grown.rows(), 3);
  EXPECT_EQ(max_abs_difference(grown, filled(3, 0)), 0.0);
  grown.append(filled(6, 3));
  EXPECT_EQ(max_abs_difference(grown, whole), 0.0);
  EXPECT_THROW(grown.append(filled(1, 4)), std::logic_error) << "rows that do not continue the sequence";
  grown.truncate(0);
  EXPECT_TRUE(grown.empty());
}

TEST(CausalWeights, DifferencesSeeShapesAndNaN) {
  const CausalWeights a = filled(3, 2);
  CausalWeights b = a;
  b.row(2)[4] += 0.5f;
  EXPECT_EQ(max_abs_difference(a, b), 0.5);
  EXPECT_EQ(max_abs_difference(a, filled(3, 1)), std::numeric_limits<double>::infinity());
  b.row(0)[0] = std::nanf("");
  EXPECT_TRUE(std::isnan(max_abs_difference(a, b)));
}

}  // namespace
}  // namespace attnlab::model
