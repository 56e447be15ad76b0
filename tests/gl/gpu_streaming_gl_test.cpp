// The GPU's streaming path (query chunks × key tiles, online softmax in compute shaders) against
// the CPU's streaming path and the dense path where both fit: output, every per-row diagnostic,
// statistics and the downsampled heatmap, for each mask kind, rectangular shapes, tile edges and
// fully blocked rows. Each test runs both streaming kernels (GpuStream), the per-row kernels and
// stream_block.comp's blocks of rows, whichever the renderer chooses; those of one kernel's own
// tiling run that kernel.
#include "engine/attention/stats.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "engine/gpu/gpu_backend.hpp"
#include "engine/gpu/gpu_device.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"
#include "gl_test_backend.hpp"
#include "support/attention_bounds.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

// A backend for each streaming kernel, with buffers of at most `limit` bytes (0: the driver's),
// made once per limit and kept; empty, with `why` set, where no GL 4.3 context can be made.
struct Kernels {
  std::vector<std::pair<std::string, std::unique_ptr<Backend>>> backends;
  std::string why;
};

Kernels& both_kernels(std::size_t limit = 0) {
  static std::map<std::size_t, Kernels> made;
  Kernels& k = made[limit];
  if (!k.backends.empty() || !k.why.empty()) return k;
  for (const auto& [name, stream] : {std::pair{"rows", GpuStream::Rows}, std::pair{"blocks", GpuStream::Blocks}}) {
    GpuBackendOptions o;
    o.max_buffer_bytes = limit;
    o.stream = stream;
    try {
      k.backends.emplace_back(name, make_gpu_backend_headless(o));
    } catch (const BackendUnavailable& e) {
      k.backends.clear();
      k.why = e.what();
      break;
    }
  }
  return k;
}

// Whether the GPU backend b streams p in blocks of rows (stream_block.comp).
bool streams_in_blocks(Backend& b, const Problem& p) {
  const std::shared_ptr<gpu::Device> device = gpu::device_of(b);
  device->make_current();
  return gpu::block_kernel(device->streaming_programs(), p, {}, device->limit) != nullptr;
}

// The streaming kernels' backends as `var` (a Kernels&); skips the test where there is no GL context.
#define REQUIRE_STREAMING_KERNELS(var, limit)           \
  Kernels& var = both_kernels(limit);                   \
  if (var.backends.empty()) GTEST_SKIP() << "no GL context: " << var.why

Matrix random_matrix(std::mt19937& rng, Eigen::Index rows, Eigen::Index cols, float sigma = 1.0f) {
  std::normal_distribution<float> dist(0.0f, sigma);
  Matrix M(rows, cols);
  for (Eigen::Index i = 0; i < M.size(); ++i) M.data()[i] = dist(rng);
  return M;
}

Problem make_problem(std::mt19937& rng, Eigen::Index n, Eigen::Index m, Eigen::Index dk, Eigen::Index dv,
                     const std::string& mask, float sigma = 1.0f) {
  Problem p;
  p.Q = random_matrix(rng, n, dk, sigma);
  p.K = random_matrix(rng, m, dk, sigma);
  p.V = random_matrix(rng, m, dv);
  if (mask == "custom") {
    p.options.mask.kind = MaskKind::Custom;
    p.options.mask.blocked.resize(n, m);
    std::uniform_int_distribution<int> coin(0, 2);
    for (Eigen::Index i = 0; i < n; ++i) {
      for (Eigen::Index j = 0; j < m; ++j) p.options.mask.blocked(i, j) = coin(rng) == 0 ? 1 : 0;
    }
    p.options.mask.blocked.row(0).setOnes();  // a fully blocked row
    if (n > 5) p.options.mask.blocked.row(n - 2).setOnes();
  } else {
    p.options.mask = parse_mask_spec(mask);
  }
  return p;
}

// mse(a, b) / mse(a, 0) (0 when both are zero).
double nmse(const Matrix& a, const Matrix& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  const double den = a.cast<double>().squaredNorm(), num = (a - b).cast<double>().squaredNorm();
  if (den == 0) return num == 0 ? 0 : INFINITY;
  return num / den;
}

// GPU streaming against the dense CPU path and against CPU streaming (output, rows, statistics,
// the heatmap of the dense weights), within bounds derived from the problem's magnitudes
// (tests/support/attention_bounds.hpp): they widen by themselves for ill-conditioned rows.
void expect_gpu_streaming_matches(Backend& gpu, const Problem& p, Eigen::Index hrows, Eigen::Index hcols,
                                  const std::string& label) {
  SCOPED_TRACE(label + ": n=" + std::to_string(p.Q.rows()) + " m=" + std::to_string(p.K.rows()) +
               " d_k=" + std::to_string(p.Q.cols()) + " d_v=" + std::to_string(p.V.cols()));
  StreamingOptions so;
  so.heatmap_rows = hrows;
  so.heatmap_cols = hcols;
  const Result g = gpu.compute_streaming(p, so);
  const Result c = compute_streaming_cpu(p, so);
  const Result d = compute_cpu(p);
  EXPECT_FALSE(g.dense);
  EXPECT_EQ(g.scores.size(), 0);
  ASSERT_TRUE(g.output.allFinite());
  {
    SCOPED_TRACE("GPU streaming against the dense CPU path");
    test::expect_result_within_bounds(p, d, g);
  }
  {
    SCOPED_TRACE("CPU streaming against the dense CPU path");
    test::expect_result_within_bounds(p, d, c);
  }
}

TEST(GpuStreamingGl, EqualsCpuStreamingAndDenseForEveryMaskKind) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(3);
    for (const char* mask : {"none", "causal", "padding:5", "prefix:4", "window:3", "custom", "padding:0"}) {
      expect_gpu_streaming_matches(gpu, make_problem(rng, 9, 13, 6, 5, mask), 1024, 1024, mask);
      expect_gpu_streaming_matches(gpu, make_problem(rng, 21, 11, 3, 9, mask), 4, 5, mask);
    }
  }
}

TEST(GpuStreamingGl, TileAndChunkEdgesAndRectangularShapes) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(5);
    // Around the 8 × 8 invocation tiles, the 1024-key tiles and the 1024-row chunks.
    const Eigen::Index shapes[][4] = {{1, 1, 1, 1},      {2, 1, 5, 3},       {65, 3, 7, 17},    {7, 1025, 9, 4},
                                      {1030, 70, 4, 2},  {40, 2100, 16, 12}, {3, 600, 130, 1}};
    for (const auto& s : shapes) {
      for (const char* mask : {"none", "causal", "custom"}) {
        expect_gpu_streaming_matches(gpu, make_problem(rng, s[0], s[1], s[2], s[3], mask), 1024, 1024, mask);
        expect_gpu_streaming_matches(gpu, make_problem(rng, s[0], s[1], s[2], s[3], mask), 7, 13, mask);
      }
    }
  }
}

TEST(GpuStreamingGl, SharpRowsTemperatureAndNoScaling) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(11);
    for (const char* mask : {"none", "causal"}) {
      Problem p = make_problem(rng, 70, 1300, 16, 4, mask, 3.0f);  // large scores: the max moves a lot
      p.options.temperature = 0.05;
      // Scores of ~±40 summed in another order differ by ~1e-5, and c = 1/(s·T) = 5 turns that into
      // a relative change of the weights: the bounds grow with the scores' magnitudes and c.
      expect_gpu_streaming_matches(gpu, p, 16, 16, "T=0.05");
      p.options.scale = false;
      p.options.temperature = 3.0;
      expect_gpu_streaming_matches(gpu, p, 16, 16, "no scale");
    }
  }
}

TEST(GpuStreamingGl, FullyBlockedRowsAreZeroAndFlagged) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(23);
    Problem p = make_problem(rng, 9, 1300, 4, 3, "padding:0");
    const Result g = gpu.compute_streaming(p, {});
    EXPECT_TRUE(g.output.isZero(0));
    for (const RowDiagnostics& d : g.rows) EXPECT_TRUE(d.fully_masked);
    EXPECT_EQ(g.stats.logits.count, 0);
    EXPECT_EQ(g.stats.scores.count, 9 * 1300);
    EXPECT_TRUE(g.heatmap.mean.isZero(0));
  }
}

TEST(GpuStreamingGl, WhatTheKernelsCannotMatchGoesToTheCpuPath) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(17);
    Problem p = make_problem(rng, 30, 70, 4, 3, "none");
    p.Q.row(5).setConstant(1e20f);  // +inf and −inf scores: the CPU's exact rows
    p.K.row(60).setConstant(1e20f);
    const Result g = gpu.compute_streaming(p, {});
    const Result c = compute_streaming_cpu(p, {});
    EXPECT_TRUE(g.output.allFinite());
    EXPECT_EQ(nmse(c.output, g.output), 0);
    // Every visible score of row 5 overflows to −∞: not a masked row (the exact path decides it).
    p = make_problem(rng, 30, 70, 4, 3, "none");
    p.K = p.K.cwiseAbs().array() + 1.0f;
    p.Q.row(5).setConstant(-3e38f);
    const Result g2 = gpu.compute_streaming(p, {});
    const Result c2 = compute_streaming_cpu(p, {});
    EXPECT_EQ(g2.rows[5].fully_masked, c2.rows[5].fully_masked);
    EXPECT_EQ(nmse(c2.output, g2.output), 0);
    p = make_problem(rng, 30, 70, 4, 3, "causal");
    p.options.normalizer = Normalizer::Sparsemax;
    EXPECT_LE(nmse(compute_streaming_cpu(p, {}).output, gpu.compute_streaming(p, {}).output), 1e-12);
    p.options.normalizer = Normalizer::Softmax;
    p.options.temperature = 1e-40;  // 1/(s·T) is not a float
    EXPECT_LE(nmse(compute_streaming_cpu(p, {}).output, gpu.compute_streaming(p, {}).output), 1e-12);
  }
}

// The per-row kernels' key tiles and row chunks under a small buffer limit (the blocks of rows
// take a head this wide by rows too; their own chunks: BlocksOfRowsVisitOnlyTheKeysTheirRowsMaySee).
TEST(GpuStreamingGl, SmallBufferLimitGivesTheSameResult) {
  // 64 KiB: 64-key tiles at d_k = 200, chunks of 256 rows.
  REQUIRE_STREAMING_KERNELS(kernels, 1 << 16);
  Backend& tiled = *kernels.backends[0].second;
  std::mt19937 rng(29);
  for (const char* mask : {"none", "window:40", "custom"}) {
    expect_gpu_streaming_matches(tiled, make_problem(rng, 300, 270, 200, 5, mask), 33, 64, mask);
  }
}

// Where the statistics of every score come from the Gram matrices (AllScores::Gram), the per-row
// kernels' chunks skip the key tiles their rows cannot see: 128-key tiles and 128-row chunks (64 KiB
// buffers at d_k = 100), twelve of each, under each interval mask. (The blocks of rows skip by
// block: BlocksOfRowsVisitOnlyTheKeysTheirRowsMaySee.)
TEST(GpuStreamingGl, KeyTilesTheMaskBlocksAreSkippedWithTheSameResult) {
  REQUIRE_STREAMING_KERNELS(kernels, 1 << 16);
  Backend& tiled = *kernels.backends[0].second;
  std::mt19937 rng(41);
  for (const char* mask : {"causal", "window:200", "prefix:300", "padding:900"}) {
    const Problem p = make_problem(rng, 1500, 1500, 100, 8, mask);
    ASSERT_FALSE(streams_in_blocks(tiled, p));
    EXPECT_EQ(all_scores_source(p, fast_inverse_divisor(effective_temperature(100, p.options)), false),
              AllScores::Gram);
    expect_gpu_streaming_matches(tiled, p, 40, 40, mask);
  }
}

// The shared-memory tiles (shaders/tile_dot.glsl, a GPU's default) in the per-row kernels' streamed
// output, with tiles of keys small enough that rows and keys both span several 64 × 64 blocks and
// chunks.
TEST(GpuStreamingGl, SharedMemoryTilesGiveTheSameResult) {
  ATTNLAB_REQUIRE_GPU(best);
  (void)best;
  GpuBackendOptions o;
  o.tiles = GpuTiles::Shared;
  o.stream = GpuStream::Rows;
  o.max_buffer_bytes = 1 << 16;
  std::unique_ptr<Backend> shared = make_gpu_backend_headless(o);
  std::mt19937 rng(31);
  for (const char* mask : {"none", "causal", "custom"}) {
    expect_gpu_streaming_matches(*shared, make_problem(rng, 150, 140, 37, 70, mask), 16, 16, mask);
  }
}

// stream_block.comp where it is asked for and the head fits (at most 128 dimensions, K and V each in
// one buffer); the per-row kernels otherwise, and by themselves on a software renderer.
TEST(GpuStreamingGl, WhichKernelsStream) {
  REQUIRE_STREAMING_KERNELS(kernels, 1 << 16);
  std::mt19937 rng(43);
  const auto in_blocks = [](Backend& b, const Problem& p) { return streams_in_blocks(b, p); };
  Backend& rows = *kernels.backends[0].second;
  Backend& blocks = *kernels.backends[1].second;
  const Problem narrow = make_problem(rng, 50, 60, 128, 128, "causal");
  EXPECT_FALSE(in_blocks(rows, narrow));
  EXPECT_TRUE(in_blocks(blocks, narrow));
  EXPECT_FALSE(in_blocks(blocks, make_problem(rng, 50, 60, 129, 8, "causal")));  // a head over 128
  EXPECT_FALSE(in_blocks(blocks, make_problem(rng, 50, 60, 8, 132, "causal")));
  EXPECT_FALSE(in_blocks(blocks, make_problem(rng, 50, 2100, 8, 8, "none")));  // K over 64 KiB
  ATTNLAB_REQUIRE_GPU(chosen);
  const bool software = gpu::device_of(chosen)->software;
  EXPECT_EQ(in_blocks(chosen, narrow), !software);
}

// The blocks of rows under every interval mask, where the Gram matrices give every score's
// statistics and each block visits only the keys its rows may see: 64 KiB buffers, so 900 rows
// are two chunks (682 rows' sums fill a buffer), of 11 and 4 blocks.
TEST(GpuStreamingGl, BlocksOfRowsVisitOnlyTheKeysTheirRowsMaySee) {
  REQUIRE_STREAMING_KERNELS(kernels, 1 << 16);
  Backend& blocks = *kernels.backends[1].second;
  std::mt19937 rng(47);
  for (const char* mask : {"causal", "window:200", "prefix:300", "padding:600", "window:1"}) {
    const Problem p = make_problem(rng, 900, 900, 8, 8, mask);
    ASSERT_TRUE(streams_in_blocks(blocks, p));
    expect_gpu_streaming_matches(blocks, p, 40, 40, mask);
  }
}

// The blocks' shapes a card's measurements choose among (bench --gpu-block): each the same result.
TEST(GpuStreamingGl, EveryBlockShapeGivesTheSameResult) {
  ATTNLAB_REQUIRE_GPU(any);
  (void)any;
  std::mt19937 rng(53);
  for (const GpuBlockShape shape : {GpuBlockShape{32, 8}, GpuBlockShape{128, 16}, GpuBlockShape{256, 64}}) {
    SCOPED_TRACE(std::to_string(shape.rows) + "x" + std::to_string(shape.keys));
    GpuBackendOptions o;
    o.stream = GpuStream::Blocks;
    o.block = shape;
    std::unique_ptr<Backend> blocks = make_gpu_backend_headless(o);
    for (const char* mask : {"causal", "window:37", "custom"}) {
      const Problem p = make_problem(rng, 300, 290, 20, 12, mask);
      ASSERT_TRUE(streams_in_blocks(*blocks, p));
      expect_gpu_streaming_matches(*blocks, p, 17, 23, mask);
    }
  }
}

TEST(GpuStreamingGl, ACancelledRunThrowsCancelled) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(37);
    const std::atomic<bool> cancel{true};
    StreamingOptions so;
    so.cancel = &cancel;
    EXPECT_THROW(gpu.compute_streaming(make_problem(rng, 20, 30, 4, 4, "none"), so), Cancelled);
  }
}

TEST(GpuStreamingGl, TimesTheStreamingPath) {
  REQUIRE_STREAMING_KERNELS(kernels, 0);
  for (auto& [name, own] : kernels.backends) {
    SCOPED_TRACE(name);
    Backend& gpu = *own;
    std::mt19937 rng(31);
    const StageTimes t = make_bench(gpu)->time_streaming(make_problem(rng, 64, 300, 8, 8, "causal"));
    EXPECT_TRUE(t.fused);
    EXPECT_GT(t.total_ms, 0);
  }
}

}  // namespace
}  // namespace attnlab
