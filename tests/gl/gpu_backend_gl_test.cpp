// Every GPU kernel (scores, logits + mask + normalizer, saturation + row diagnostics, output)
// against the CPU engine on seeded random inputs, through the Backend interface.
#include "engine/gpu/gl_objects.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "engine/gpu/gpu_backend.hpp"
#include "engine/gpu/gpu_clock.hpp"
#include "engine/gpu/gpu_device.hpp"
#include "engine/cpu/dense.hpp"
#include "gl_test_backend.hpp"
#include "support/attention_bounds.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <sstream>

namespace attnlab {
namespace {

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937& rng, float scale = 1.0f) {
  std::normal_distribution<float> normal(0.0f, scale);
  Matrix out(rows, cols);
  for (Eigen::Index i = 0; i < out.size(); ++i) out.data()[i] = normal(rng);
  return out;
}

// The GPU's result against the CPU's for the same problem, within bounds derived from the
// problem's magnitudes (tests/support/attention_bounds.hpp), plus what must match exactly.
void expect_same(const Problem& p, const Result& cpu, const Result& gpu, const std::string& label) {
  SCOPED_TRACE(label);
  ASSERT_EQ(gpu.scores.rows(), cpu.n);
  ASSERT_EQ(gpu.output.cols(), cpu.d_v);
  ASSERT_FALSE(gpu.weights.hasNaN());
  ASSERT_FALSE(gpu.output.hasNaN());
  test::expect_result_within_bounds(p, cpu, gpu);
}

Problem random_problem(Eigen::Index n, Eigen::Index m, Eigen::Index d_k, Eigen::Index d_v, unsigned seed) {
  std::mt19937 rng(seed);
  Problem p;
  p.Q = random_matrix(n, d_k, rng);
  p.K = random_matrix(m, d_k, rng);
  p.V = random_matrix(m, d_v, rng);
  return p;
}

struct Shape {
  Eigen::Index n, m, d_k, d_v;
};

TEST(GpuBackendGl, DescribesItself) {
  ATTNLAB_REQUIRE_GPU(gpu);
  EXPECT_EQ(gpu.name(), "gpu");
  EXPECT_EQ(gpu.description().rfind("GPU: ", 0), 0u) << gpu.description();
}

TEST(GpuBackendGl, MatchesCpuAcrossShapesAndDk) {
  ATTNLAB_REQUIRE_GPU(gpu);
  const Shape shapes[] = {{1, 1, 1, 1},   {3, 3, 2, 2},    {5, 7, 3, 5},     {4, 9, 4, 4},   {17, 33, 64, 8},
                          {33, 65, 129, 17}, {9, 6, 255, 3}, {5, 3, 7, 64}, {8, 12, 1024, 4}, {6, 10, 4096, 7}, {130, 3, 5, 1},
                          // Around the kernels' 8 × 8 tiles (rows, keys, value columns) and 4-wide texels.
                          {9, 65, 12, 9}, {64, 64, 4, 8}, {65, 1, 3, 17}, {8, 8, 6, 16}, {71, 129, 1, 33}};
  unsigned seed = 1;
  for (const Shape& s : shapes) {
    Problem p = random_problem(s.n, s.m, s.d_k, s.d_v, seed++);
    expect_same(p, compute_cpu(p), gpu.compute(p),
                "n=" + std::to_string(s.n) + " m=" + std::to_string(s.m) + " d_k=" + std::to_string(s.d_k));
  }
}

TEST(GpuBackendGl, MatchesCpuForEveryMaskKind) {
  ATTNLAB_REQUIRE_GPU(gpu);
  const char* specs[] = {"none", "causal", "padding:4", "prefix:3", "window:2", "padding:0", "window:1"};
  for (const char* spec : specs) {
    for (const Shape& s : {Shape{9, 9, 16, 4}, Shape{7, 11, 5, 3}}) {
      Problem p = random_problem(s.n, s.m, s.d_k, s.d_v, 7);
      p.options.mask = parse_mask_spec(spec);
      expect_same(p, compute_cpu(p), gpu.compute(p), std::string(spec) + " m=" + std::to_string(s.m));
    }
  }
}

TEST(GpuBackendGl, CustomMaskWithFullyBlockedRowsGivesZerosAndFlags) {
  ATTNLAB_REQUIRE_GPU(gpu);
  Problem p = random_problem(6, 10, 8, 3, 11);
  std::mt19937 rng(5);
  p.options.mask.kind = MaskKind::Custom;
  p.options.mask.blocked = BlockGrid::Zero(6, 10);
  for (Eigen::Index i = 0; i < 6; ++i)
    for (Eigen::Index j = 0; j < 10; ++j) p.options.mask.blocked(i, j) = rng() % 3 == 0;
  p.options.mask.blocked.row(2).setOnes();
  p.options.mask.blocked.row(5).setOnes();
  const Result gpu_result = gpu.compute(p);
  expect_same(p, compute_cpu(p), gpu_result, "custom");
  for (int row : {2, 5}) {
    EXPECT_TRUE(gpu_result.rows[static_cast<size_t>(row)].fully_masked);
    EXPECT_EQ(gpu_result.weights.row(row).cwiseAbs().sum(), 0.0f);
    EXPECT_EQ(gpu_result.output.row(row).cwiseAbs().sum(), 0.0f);
  }
}

TEST(GpuBackendGl, MatchesCpuForTemperaturesNoScaleAndNormalizers) {
  ATTNLAB_REQUIRE_GPU(gpu);
  for (Normalizer norm : {Normalizer::Softmax, Normalizer::Sparsemax, Normalizer::Sigmoid, Normalizer::Hardmax}) {
    for (double t : {0.05, 0.5, 1.0, 3.0, 1000.0}) {
      for (bool scale : {true, false}) {
        Problem p = random_problem(7, 13, 32, 5, 3);
        p.options.temperature = t;
        p.options.scale = scale;
        p.options.normalizer = norm;
        p.options.mask = parse_mask_spec("causal");
        expect_same(p, compute_cpu(p), gpu.compute(p),
                    std::string(normalizer_name(norm)) + " T=" + std::to_string(t) + (scale ? " scaled" : " unscaled"));
      }
    }
  }
}

TEST(GpuBackendGl, HugeValuesSaturateLikeTheCpu) {
  ATTNLAB_REQUIRE_GPU(gpu);
  // Scores around 1e30: softmax is one-hot, and nothing overflows into NaN.
  Problem p = random_problem(5, 8, 16, 4, 9);
  p.Q *= 1e14f;
  p.K *= 1e14f;
  p.V *= 1e30f;
  expect_same(p, compute_cpu(p), gpu.compute(p), "scores near 1e30");
  // Scores that overflow float32 to +inf: the infinite cells share the row on both backends.
  Problem q;
  q.Q = Matrix::Constant(2, 2, 1e19f);
  q.K = Matrix::Constant(3, 2, 1e19f);
  q.K(1, 0) = q.K(1, 1) = 1.0f;
  q.V = Matrix::Identity(3, 3);
  const Result cpu_inf = compute_cpu(q), gpu_inf = gpu.compute(q);
  expect_same(q, cpu_inf, gpu_inf, "overflowed scores");
  EXPECT_FLOAT_EQ(gpu_inf.weights(0, 0), 0.5f);
  // Scores that overflow to −∞ stay visible: weight 0 beside finite ones, a shared row when every
  // visible score is −∞ (row 1 here, under a causal mask).
  Problem neg;
  neg.Q = Matrix::Constant(3, 2, 1e19f);
  neg.K = Matrix::Constant(3, 2, -1e19f);
  neg.K(2, 0) = neg.K(2, 1) = 1.0f;
  neg.V = Matrix::Identity(3, 3);
  for (Normalizer norm : {Normalizer::Softmax, Normalizer::Sigmoid, Normalizer::Hardmax, Normalizer::Sparsemax}) {
    for (const char* spec : {"none", "causal"}) {
      neg.options.normalizer = norm;
      neg.options.mask = parse_mask_spec(spec);
      expect_same(neg, compute_cpu(neg), gpu.compute(neg),
                  std::string("scores of -inf, ") + std::string(normalizer_name(norm)) + " " + spec);
    }
  }
  // 1e40 − 1e40 is ∞ − ∞ = NaN (or +∞ with a fused multiply-add) in float32: both backends show
  // the exact score, 0, and flag the row.
  Problem r;
  r.Q = Matrix{{1e20f, 1e20f}, {1, 2}};
  r.K = Matrix{{1e20f, -1e20f}, {1, 1}, {3, -1}};
  r.V = Matrix::Identity(3, 3);
  const Result cpu_exact = compute_cpu(r), gpu_exact = gpu.compute(r);
  EXPECT_EQ(gpu_exact.scores(0, 0), 0.0f);
  EXPECT_FALSE(gpu_exact.rows[1].scores_recomputed);
  EXPECT_TRUE(gpu_exact.rows[0].scores_recomputed);
  expect_same(r, cpu_exact, gpu_exact, "scores recomputed in double");
}

TEST(GpuBackendGl, ExtremeTemperaturesMatchTheCpu) {
  ATTNLAB_REQUIRE_GPU(gpu);
  for (double t : {1e-300, 1e-35, 1e-20, 1e20, 1e35, 1e300}) {
    Problem p = random_problem(4, 6, 8, 3, 4);
    p.options.temperature = t;
    expect_same(p, compute_cpu(p), gpu.compute(p), "T=" + std::to_string(t));
  }
}

TEST(GpuBackendGl, TilingAcrossRowsAndKeysGivesTheSameResult) {
  ATTNLAB_REQUIRE_GPU_WITH_BUFFER_LIMIT(tiled, 4096);  // this problem in many row and key chunks
  for (const char* spec : {"none", "causal", "window:5"}) {
    Problem p = random_problem(50, 70, 33, 9, 21);
    p.options.mask = parse_mask_spec(spec);
    expect_same(p, compute_cpu(p), tiled.compute(p), std::string("tiled ") + spec);
  }
  Problem p = random_problem(40, 30, 7, 6, 22);
  p.options.mask.kind = MaskKind::Custom;
  p.options.mask.blocked = BlockGrid::Zero(40, 30);
  for (Eigen::Index i = 0; i < 40; ++i) p.options.mask.blocked(i, i % 30) = 1;
  p.options.mask.blocked.row(17).setOnes();
  expect_same(p, compute_cpu(p), tiled.compute(p), "tiled custom");
}

// The route NVIDIA's EGL takes (EGL_EXT_platform_device), here on whatever devices EGL offers: Mesa's
// software device on a machine with no GPU. Mesa and NVIDIA's EGL both offer devices, so wherever a
// headless context opens, one on an EGL device must open too.
TEST(GpuBackendGl, AnEglDeviceRunsTheKernelsLikeTheCpu) {
  ATTNLAB_REQUIRE_GPU(best);
  {
    gpu::HeadlessContext context(gpu::HeadlessRoute::EglDevice);
    EXPECT_EQ(context.display_name().rfind("EGL device ", 0), 0u) << context.display_name();
  }
  GpuBackendOptions o;
  o.route = gpu::HeadlessRoute::EglDevice;
  std::unique_ptr<Backend> device = make_gpu_backend_headless(o);
  for (const char* spec : {"none", "causal"}) {
    Problem p = random_problem(37, 53, 96, 20, 31);
    p.options.mask = parse_mask_spec(spec);
    const Result cpu = compute_cpu(p);
    expect_same(p, cpu, device->compute(p), std::string("on an EGL device, ") + spec);
    // Two backends on two displays take turns on this thread.
    expect_same(p, cpu, best.compute(p), std::string("on the default display after it, ") + spec);
  }
  // Destroying a backend deletes its own kernels, not those of the context current at the time.
  device.reset();
  Problem p = random_problem(12, 20, 8, 4, 32);
  expect_same(p, compute_cpu(p), best.compute(p), "on the default display after the other was destroyed");
}

// The shared-memory tiles (shaders/tile_dot.glsl), a GPU's default, here on every shape around
// their 64 × 64 blocks and 16-dimension slices, in the scores and the output, and with a buffer
// limit that splits rows and keys into chunks. The default's choice follows the renderer.
TEST(GpuBackendGl, SharedMemoryTilesMatchTheCpu) {
  ATTNLAB_REQUIRE_GPU(best);
  EXPECT_EQ(make_bench(best)->kernels(), gpu::is_software_renderer(best.device()) ? "texture tiles" : "shared-memory tiles");
  GpuBackendOptions o;
  o.tiles = GpuTiles::Shared;
  std::unique_ptr<Backend> shared = make_gpu_backend_headless(o);
  EXPECT_EQ(make_bench(*shared)->kernels(), "shared-memory tiles");
  const Shape shapes[] = {{1, 1, 1, 1},    {5, 7, 3, 5},     {17, 33, 64, 8},  {65, 63, 17, 9},
                          {64, 64, 16, 64}, {70, 130, 33, 70}, {9, 6, 255, 3}, {129, 65, 20, 130}, {300, 260, 70, 140}};
  unsigned seed = 40;
  for (const Shape& s : shapes) {
    for (const char* spec : {"none", "causal"}) {
      Problem p = random_problem(s.n, s.m, s.d_k, s.d_v, seed++);
      p.options.mask = parse_mask_spec(spec);
      expect_same(p, compute_cpu(p), shared->compute(p),
                  "shared n=" + std::to_string(s.n) + " m=" + std::to_string(s.m) + " d_k=" + std::to_string(s.d_k) +
                      " d_v=" + std::to_string(s.d_v) + " " + spec);
    }
  }
  o.max_buffer_bytes = 4096;
  std::unique_ptr<Backend> chunked = make_gpu_backend_headless(o);
  Problem p = random_problem(50, 70, 33, 9, 60);
  expect_same(p, compute_cpu(p), chunked->compute(p), "shared, in chunks");
}

// What `bench --backend gpu` divides by: the device's own FMA peak, probed once per backend.
TEST(GpuBackendGl, ProbesItsFmaPeakOnceAndKeepsIt) {
  ATTNLAB_REQUIRE_GPU(gpu);
  const std::unique_ptr<BackendBench> bench = make_bench(gpu);
  const FmaPeak& peak = bench->fma_peak();
  EXPECT_TRUE(std::isfinite(peak.gflops) && peak.gflops > 0) << peak.gflops;
  EXPECT_EQ(peak.isa, "GL compute");
  EXPECT_GE(peak.threads, 2048 * 256);
  EXPECT_GT(peak.probe_ms, 0);
  EXPECT_EQ(&bench->fma_peak(), &peak);
}

TEST(GpuBackendGl, TooWideForTheBufferLimitIsAnInputError) {
  ATTNLAB_REQUIRE_GPU_WITH_BUFFER_LIMIT(tiny, 64);
  Problem p = random_problem(2, 2, 64, 2, 1);
  EXPECT_THROW(tiny.compute(p), InputError);
}

TEST(GpuBackendGl, RejectsBadInputLikeTheCpu) {
  ATTNLAB_REQUIRE_GPU(gpu);
  Problem p = random_problem(3, 4, 2, 2, 1);
  p.Q(1, 1) = NAN;
  EXPECT_THROW(gpu.compute(p), InputError);
  Problem q = random_problem(3, 4, 2, 2, 1);
  q.options.temperature = 0;
  EXPECT_THROW(gpu.compute(q), InputError);
}

TEST(GpuBackendGl, TimesEveryStage) {
  ATTNLAB_REQUIRE_GPU(gpu);
  const StageTimes t = make_bench(gpu)->time_stages(random_problem(64, 64, 64, 64, 2));
  EXPECT_GT(t.scores_ms, 0);
  EXPECT_GT(t.softmax_ms, 0);
  EXPECT_GT(t.output_ms, 0);
}

// The bench's runs on matrices that stay on the GPU compute what a fresh computation does, to the
// bit, whether the problem is one chunk of query rows (nothing uploaded again) or several.
TEST(GpuBackendGl, TheBenchsResidentRunsComputeTheSameResult) {
  ATTNLAB_REQUIRE_GPU(gpu);
  const std::shared_ptr<gpu::Device> device = gpu::device_of(gpu);
  for (const size_t limit : {device->limit, size_t{1} << 14}) {
    SCOPED_TRACE(limit);
    Problem p = random_problem(70, 90, 24, 12, 5);
    p.options.mask = parse_mask_spec("causal");
    device->make_current();
    const Result fresh = gpu::compute_dense_gpu(device->dense_programs(), p, limit, nullptr);
    gpu::ResidentDense resident(device->dense_programs(), p, limit);
    EXPECT_TRUE(resident.holds(p));
    for (int run = 0; run < 3; ++run) EXPECT_GT(resident.run().scores_ms, 0);
    const Result again = resident.result();
    EXPECT_EQ(again.scores, fresh.scores);
    EXPECT_EQ(again.weights, fresh.weights);
    EXPECT_EQ(again.output, fresh.output);
    EXPECT_EQ(again.rows[69].entropy, fresh.rows[69].entropy);
  }
}

// The shared tiles' variant with four rows per invocation (half the accumulators, twice the
// invocations; bench/device/kit.py times it on a card) computes the same scores and output.
TEST(GpuBackendGl, SharedTilesOfFourRowsMatchTheCpu) {
  ATTNLAB_REQUIRE_GPU(gpu);
  const std::shared_ptr<gpu::Device> device = gpu::device_of(gpu);
  device->make_current();
  const std::string four_rows = "#define TILE_SHARED 1\n#define TILE_ROWS 4\n";
  const gpu::ComputeProgram scores("scores.comp", four_rows), output("output.comp", four_rows);
  const gpu::DensePrograms programs{scores, device->softmax, device->diagnostics, output, false};
  gpu::set_sampler_units(programs);
  for (const auto& [n, m, dk, dv] : {std::array<Eigen::Index, 4>{1, 1, 1, 1}, {130, 257, 37, 70}, {300, 129, 64, 5}}) {
    SCOPED_TRACE(std::to_string(n) + " x " + std::to_string(m));
    Problem p = random_problem(n, m, dk, dv, 41);
    p.options.mask = parse_mask_spec("causal");
    test::expect_result_within_bounds(p, compute_cpu(p), gpu::compute_dense_gpu(programs, p, device->limit, nullptr));
  }
}

// The SM clock is read only from an NVIDIA card's management library: a card lent to the kit has it
// (the driver installs it), every other renderer reads nothing.
TEST(GpuBackendGl, TheSmClockIsAnNvidiaCardsOnly) {
  EXPECT_FALSE(gpu::SmClock("llvmpipe (LLVM 15.0.6, 256 bits)").available());
  EXPECT_FALSE(gpu::SmClock("AMD Radeon RX 7900 XTX (radeonsi, navi31, LLVM 15.0.6, DRM 3.54)").available());
  ATTNLAB_REQUIRE_GPU(gpu);
  const std::string renderer = gpu.device();
  const gpu::SmClock clock(renderer);
  if (renderer.rfind("NVIDIA", 0) != 0) {
    EXPECT_FALSE(clock.available());
    return;
  }
  ASSERT_TRUE(clock.available()) << renderer << ": libnvidia-ml.so.1 or the device was not found";
  EXPECT_GT(clock.top_mhz(), 0u);
  EXPECT_GT(clock.now_mhz(), 0u);
  EXPECT_LE(clock.now_mhz(), clock.top_mhz());
}

TEST(GpuBackendGl, ShaderErrorsNameTheFileAndCarryTheLog) {
  ATTNLAB_REQUIRE_GPU(gpu);
  gpu.compute(random_problem(1, 1, 1, 1, 1));  // makes the shared context current again
  try {
    gpu::ComputeProgram broken("broken.comp", "#version 430\nlayout(local_size_x = 1) in;\nvoid main() { undefined_thing = 1; }\n", "");
    FAIL() << "expected a compile error";
  } catch (const gpu::GpuError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("shaders/broken.comp"), std::string::npos) << what;
    EXPECT_NE(what.find("undefined_thing"), std::string::npos) << what;
  }
  EXPECT_THROW(gpu::ComputeProgram("no_such_kernel.comp"), gpu::GpuError);
}

}  // namespace
}  // namespace attnlab
