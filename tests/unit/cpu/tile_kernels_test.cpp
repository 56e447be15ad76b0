// The CPU's own tile products (engine/cpu/tile_kernels.cpp) against a double-precision product, on
// every shape edge: rows not a multiple of the micro-tiles, keys not a multiple of a strip, output
// widths of 16 to 80 columns, sums over d in slices; and the packed strips they read. Bounds from
// each problem's magnitudes (a float32 sum of d products in any order is within γ_d Σ|terms| of the
// exact sum), not constants.
#include "engine/cpu/output_only.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/cpu/softmax_kernels.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

namespace attnlab {
namespace {

using I = std::int64_t;

double gamma_n(double n) {
  const double x = n * 0x1p-24;
  return x / (1 - x);
}

std::vector<float> random_floats(I count, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(count));
  for (float& x : v) x = normal(rng);
  return v;
}

TEST(TileKernels, ScoresEqualTheExactProductWithinRounding) {
  const kernels::TileProducts& t = *kernels::table().tiles;
  if (!t.scores) GTEST_SKIP() << "this CPU's variant (" << kernels::table().name << ") multiplies tiles with OpenBLAS";
  std::mt19937 rng(5);
  for (I rows : {1, 7, 8, 9, 23, 64}) {
    for (I cols : {1, 15, 16, 31, 32, 33, 100}) {
      for (I d : {1, 3, 16, 64, 70}) {
        SCOPED_TRACE(testing::Message() << rows << " rows, " << cols << " keys, d = " << d);
        const I m = cols + 40;  // keys from 32 (a strip boundary) on, in a longer K
        const std::vector<float> Q = random_floats(rows * d, rng), K = random_floats(m * d, rng);
        std::vector<float> strips(static_cast<size_t>((m + 31) / 32 * 32 * d));
        kernels::pack_key_strips(K.data(), m, d, d, strips.data());
        const I lds = cols + 3;
        std::vector<float> S(static_cast<size_t>(rows * lds), 7.0f);
        t.scores(Q.data(), d, strips.data() + 32 * d, rows, cols, d, S.data(), lds);
        for (I i = 0; i < rows; ++i) {
          for (I j = 0; j < cols; ++j) {
            double exact = 0, magnitude = 0;
            for (I k = 0; k < d; ++k) {
              const double term = static_cast<double>(Q[i * d + k]) * K[(32 + j) * d + k];
              exact += term;
              magnitude += std::abs(term);
            }
            ASSERT_NEAR(S[i * lds + j], exact, gamma_n(static_cast<double>(d) + 1) * magnitude) << i << ", " << j;
          }
          for (I j = cols; j < lds; ++j) ASSERT_EQ(S[i * lds + j], 7.0f) << "wrote past the tile at " << i << ", " << j;
        }
      }
    }
  }
}

// O (rows × ldo floats) holds P · V (keys deep) in its first `width` columns, added to O0's cells
// where `added` (else from zero), within γ of the terms' magnitudes, and O0's cells beyond them.
void expect_output(const std::vector<float>& O, const std::vector<float>& O0, bool added, const std::vector<float>& P,
                   I ldp, const std::vector<float>& V, I ldv, I rows, I keys, I width, I ldo) {
  for (I i = 0; i < rows; ++i) {
    for (I c = 0; c < ldo; ++c) {
      if (c >= width) {
        ASSERT_EQ(O[i * ldo + c], O0[i * ldo + c]) << "wrote past the output at " << i << ", " << c;
        continue;
      }
      double exact = added ? O0[i * ldo + c] : 0.0, magnitude = std::abs(exact);
      for (I j = 0; j < keys; ++j) {
        const double term = static_cast<double>(P[i * ldp + j]) * V[j * ldv + c];
        exact += term;
        magnitude += std::abs(term);
      }
      ASSERT_NEAR(O[i * ldo + c], exact, gamma_n(static_cast<double>(keys) + 2) * magnitude) << i << ", " << c;
    }
  }
}

TEST(TileKernels, OutputAddsTheExactProductWithinRounding) {
  const kernels::TileProducts& t = *kernels::table().tiles;
  if (!t.output) GTEST_SKIP() << "this CPU's variant (" << kernels::table().name << ") multiplies tiles with OpenBLAS";
  std::mt19937 rng(6);
  for (I rows : {1, 5, 6, 7, 13, 64}) {
    for (I cols : {1, 63, 64, 65, 200}) {
      for (I dv : {16, 32, 48, 64, 80}) {
        SCOPED_TRACE(testing::Message() << rows << " rows, " << cols << " keys, d_v = " << dv);
        const I ldp = cols + 5, ldo = dv + 16;
        const std::vector<float> P = random_floats(rows * ldp, rng), V = random_floats(cols * dv, rng);
        const std::vector<float> O0 = random_floats(rows * ldo, rng);
        std::vector<float> O = O0;
        t.output(P.data(), ldp, V.data(), dv, rows, cols, dv, O.data(), ldo);
        expect_output(O, O0, true, P, ldp, V, dv, rows, cols, dv, ldo);
      }
    }
  }
}

// O = P V written over what was there, then a second slice of keys added (the wide dense path's
// output), at every width the panels take, and nothing written beyond the panel's columns.
TEST(TileKernels, PanelOutputWritesThenAddsSlicesOfKeysWithinRounding) {
  const kernels::TileProducts& t = *kernels::table().tiles;
  if (!t.panel_output) GTEST_SKIP() << "this CPU's variant (" << kernels::table().name << ") multiplies with OpenBLAS";
  std::mt19937 rng(9);
  for (I rows : {1, 5, 6, 7, 13}) {
    for (I keys : {1, 2, 65}) {
      for (I width : {16, 32, 48, 64}) {
        SCOPED_TRACE(testing::Message() << rows << " rows, " << keys << " keys, width " << width);
        const I ldp = keys + 3, ldv = width + 16, ldo = width + 16, split = keys / 2;
        const std::vector<float> P = random_floats(rows * ldp, rng), V = random_floats(keys * ldv, rng);
        std::vector<float> O = random_floats(rows * ldo, rng);
        const std::vector<float> O0 = O;
        t.panel_output(P.data(), ldp, V.data(), ldv, rows, keys - split, width, false, O.data(), ldo);
        if (split > 0) {
          t.panel_output(P.data() + keys - split, ldp, V.data() + (keys - split) * ldv, ldv, rows, split, width, true,
                         O.data(), ldo);
        }
        expect_output(O, O0, false, P, ldp, V, ldv, rows, keys, width, ldo);
      }
    }
  }
}

// S = Q · strips over d in two slices, the second added to the first (the wide dense path's
// scores), and nothing written beyond the tile's rows and strips.
TEST(TileKernels, StripScoresAddSlicesOfDWithinRounding) {
  const kernels::TileProducts& t = *kernels::table().tiles;
  if (!t.strip_scores) GTEST_SKIP() << "this CPU's variant (" << kernels::table().name << ") multiplies with OpenBLAS";
  std::mt19937 rng(8);
  for (I rows : {1, 11, 12, 13, 25}) {
    for (I strips : {1, 2}) {
      for (I d : {1, 16, 33}) {
        SCOPED_TRACE(testing::Message() << rows << " rows, " << strips << " strips, d = " << d);
        const I keys = 32 * strips, split = d / 2;
        const std::vector<float> Q = random_floats(rows * d, rng), K = random_floats(keys * d, rng);
        std::vector<float> first(static_cast<size_t>(keys * split)), second(static_cast<size_t>(keys * (d - split)));
        t.pack(K.data(), d, keys, split, first.data());
        t.pack(K.data() + split, d, keys, d - split, second.data());
        const I lds = keys + 5;
        std::vector<float> S(static_cast<size_t>((rows + 1) * lds), 7.0f);
        t.strip_scores(Q.data(), d, first.data(), strips, split, rows, false, S.data(), lds);
        t.strip_scores(Q.data() + split, d, second.data(), strips, d - split, rows, true, S.data(), lds);
        for (I i = 0; i <= rows; ++i) {
          for (I j = 0; j < lds; ++j) {
            if (i == rows || j >= keys) {
              ASSERT_EQ(S[i * lds + j], 7.0f) << "wrote past the tile at " << i << ", " << j;
              continue;
            }
            double exact = 0, magnitude = 0;
            for (I k = 0; k < d; ++k) {
              const double term = static_cast<double>(Q[i * d + k]) * K[j * d + k];
              exact += term;
              magnitude += std::abs(term);
            }
            ASSERT_NEAR(S[i * lds + j], exact, gamma_n(static_cast<double>(d) + 1) * magnitude) << i << ", " << j;
          }
        }
      }
    }
  }
}

// Keys contiguous (the streaming path's K) or d of every ldk floats (one K/V head's columns in
// a decoder's rows of heads side by side); d below 16, a multiple of 16 and between (the
// AVX-512 packing's transposed 16 × 16 blocks and its edges).
TEST(TileKernels, PackedStripsHoldEveryKeyAndZeroPadding) {
  std::mt19937 rng(7);
  for (const I m : {70, 64}) {
    for (const I d : {5, 16, 37}) {
      for (const I ldk : {d, 3 * d + 1}) {
        SCOPED_TRACE(testing::Message() << m << " keys, d = " << d << ", row stride " << ldk);
        const std::vector<float> K = random_floats(m * ldk + 2, rng);  // the keys from float 2 on
        std::vector<float> strips(static_cast<size_t>(96 * d), -1.0f);
        kernels::pack_key_strips(K.data() + 2, m, d, ldk, strips.data());
        for (I j = 0; j < (m + 31) / 32 * 32; ++j) {
          for (I k = 0; k < d; ++k) {
            const float got = strips[static_cast<size_t>((j / 32) * 32 * d + k * 32 + j % 32)];
            ASSERT_EQ(got, j < m ? K[j * ldk + 2 + k] : 0.0f) << j << ", " << k;
          }
        }
        for (I x = (m + 31) / 32 * 32 * d; x < 96 * d; ++x) ASSERT_EQ(strips[static_cast<size_t>(x)], -1.0f) << x;
      }
    }
  }
}

// Tiles follow the caches the system reports: powers of two, within sane limits, wider than tall,
// at least 128 rows.
TEST(TileKernels, StreamingTilesComeFromTheCacheSizes) {
  const StreamingTiles t = streaming_tile_sizes(64, 64);
  EXPECT_GE(t.rows, 128);
  EXPECT_LE(t.rows, 512);
  EXPECT_GE(t.cols, 64);
  EXPECT_LE(t.cols, 1024);
  EXPECT_GE(t.cols, t.rows);
  EXPECT_EQ(t.rows & (t.rows - 1), 0);
  EXPECT_EQ(t.cols & (t.cols - 1), 0);
  if (t.l2_bytes > 0) {
    // The scores and weights of a tile take at most a quarter of L2, unless that would leave fewer
    // than 128 rows.
    EXPECT_TRUE(t.rows == 128 || 2 * t.rows * t.cols * 4 <= t.l2_bytes / 4) << t.rows << " × " << t.cols;
    EXPECT_LE(2 * 64 * t.cols * 4, t.l2_bytes / 4);
  }
  EXPECT_GE(streaming_tile_sizes(64, 4096).rows, t.rows);
}

}  // namespace
}  // namespace attnlab
