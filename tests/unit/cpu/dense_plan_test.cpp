// The dense plans `attnlab bench` chooses between (cpu/dense_plan.hpp): every candidate's output
// within the bounds of the dense reference whichever the calibration picks (CTest runs this file
// again under OPENBLAS_CORETYPE=Haswell, whose kernels can make it pick another), the plans' names,
// the cache file read back and passed over where it is damaged, and a calibration that measures
// once, is read back from the cache, and never fails for a cache it cannot write.
#include "engine/cpu/dense.hpp"
#include "engine/cpu/dense_plan.hpp"
#include "support/attention_bounds.hpp"
#include "support/test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace attnlab {
namespace {

Problem make_problem(std::mt19937& rng, Eigen::Index n, Eigen::Index m, Eigen::Index dk, Eigen::Index dv, MaskKind kind) {
  Problem p;
  p.Q = test::random_matrix(rng, n, dk);
  p.K = test::random_matrix(rng, m, dk);
  p.V = test::random_matrix(rng, m, dv);
  p.options.mask = test::random_mask(rng, kind, n, m);
  return p;
}

std::filesystem::path temp_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("attnlab_dense_plan_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(DensePlans, EveryCandidateGivesTheOutputWithinBounds) {
  std::mt19937 rng(51);
  // Strip heights around the shapes, d on both sides of 512 (the Wide default), causal squares
  // (the triangular output product) and rectangles; d_k = 4100 and m = 4200, which the own kernels
  // sum in slices on any L2 up to 4 MiB, and d_v = 112, 64 columns and 48.
  const std::vector<std::array<Eigen::Index, 4>> shapes{
      {1, 1, 1, 1},      {70, 70, 8, 4},       {300, 300, 16, 16}, {257, 513, 5, 3}, {200, 200, 520, 9},
      {129, 300, 64, 600}, {70, 90, 4100, 112}, {20, 4200, 8, 32}};
  for (const auto& sh : shapes) {
    for (MaskKind kind : test::all_mask_kinds()) {
      const Problem p = make_problem(rng, sh[0], sh[1], sh[2], sh[3], kind);
      SCOPED_TRACE(test::describe(p));
      const Result ref = compute_cpu(p);
      const test::MatrixD bound = test::attention_bounds(p, ref).output;
      std::vector<DensePlan> plans = candidate_dense_plans(p);
      plans.push_back({DensePlan::Layout::Strips, 7, 3});  // odd sizes the candidates never use
      plans.push_back({DensePlan::Layout::Wide, 0, 5});
      plans.push_back({DensePlan::Layout::Wide, 0, 5, /*own_scores=*/true, /*own_output=*/true});
      plans.push_back({DensePlan::Layout::Wide, 0, 0, /*own_scores=*/true, /*own_output=*/false});
      plans.push_back({DensePlan::Layout::Wide, 0, 0, /*own_scores=*/false, /*own_output=*/true});
      for (const DensePlan& plan : plans) {
        StageTimes t;
        test::expect_within(ref.output, attention_output_cpu(p, plan, &t), bound, plan.name());
        EXPECT_GE(t.total_ms, 0);
      }
    }
  }
}

TEST(DensePlans, CandidatesStartWithTheDefaultAndNamesReadBack) {
  std::mt19937 rng(53);
  const Problem p = make_problem(rng, 300, 300, 16, 16, MaskKind::Causal);
  const std::vector<DensePlan> plans = candidate_dense_plans(p);
  ASSERT_GE(plans.size(), 4u);
  EXPECT_EQ(plans.front(), default_dense_plan(p));
  for (const DensePlan& plan : plans) {
    const std::optional<DensePlan> back = parse_dense_plan(plan.name());
    ASSERT_TRUE(back) << plan.name();
    EXPECT_EQ(*back, plan);
  }
  EXPECT_EQ(parse_dense_plan("wide full")->leaf, 0);
  EXPECT_EQ(parse_dense_plan("strips 128/32")->rows, 128);
  for (const DensePlan plan : {DensePlan{DensePlan::Layout::Wide, 0, 64, true, true},
                               DensePlan{DensePlan::Layout::Wide, 0, 0, true, false},
                               DensePlan{DensePlan::Layout::Wide, 0, 7, false, true}}) {
    EXPECT_EQ(parse_dense_plan(plan.name()), plan) << plan.name();
  }
  EXPECT_EQ(DensePlan({DensePlan::Layout::Wide, 0, 64, true, true}).name(), "wide 64, own kernels");
  EXPECT_EQ(DensePlan({DensePlan::Layout::Wide, 0, 0, false, true}).name(), "wide full, own output");
  EXPECT_FALSE(parse_dense_plan("wide 64")->own_output);
  for (const char* bad : {"", "wide", "wide 0", "strips 12", "strips /3", "strips 3/", "strips -1/2", "tall 3", "wide 3x",
                          "strips 99999999/1", "wide , own kernels", "strips 8/4, own kernels", "wide 64, own",
                          "wide 64, own kernels, own output", "wide 64 own output"}) {
    EXPECT_FALSE(parse_dense_plan(bad)) << bad;
  }
  // Without a mask the cutting does nothing: each layout and height once.
  Problem open = p;
  open.options.mask = Mask{};
  for (const DensePlan& plan : candidate_dense_plans(open)) EXPECT_EQ(plan.leaf, 0) << plan.name();
  // Other normalizers stream whatever the plan: nothing to measure.
  Problem sparse = p;
  sparse.options.normalizer = Normalizer::Sparsemax;
  EXPECT_EQ(candidate_dense_plans(sparse).size(), 1u);
}

TEST(PlanCache, ReadsWhatItWritesAndPassesOverTheRest) {
  const std::vector<PlanCacheEntry> entries{
      {"GenuineIntel family 6 model 207, OpenBLAS (SkylakeX kernels)", "n=1024 m=1024 d_k=64 d_v=64 mask=causal",
       {DensePlan::Layout::Strips, 256, 32}, 3.25},
      {"AuthenticAMD family 26 model 2", "n=1 m=1 d_k=1 d_v=1 mask=none", {DensePlan::Layout::Wide, 0, 0}, 0},
      {"AuthenticAMD family 26 model 2", "n=8 m=8 d_k=1 d_v=1 mask=causal", {DensePlan::Layout::Wide, 0, 64, true, true},
       2},
      {"AuthenticAMD family 26 model 2", "n=8 m=8 d_k=1 d_v=1 mask=none", {DensePlan::Layout::Wide, 0, 0, false, true},
       3}};
  const std::string text = format_plan_cache(entries);
  EXPECT_EQ(parse_plan_cache(text), entries);
  // Damaged lines are passed over, the others kept.
  const std::string damaged = text + "half a line\n" + "a\tb\tstrips 1/1\n" + "a\tb\tstrips 1/1\tnan\n" +
                              "a\tb\tround 3\t1\n" + "a\tb\tstrips 1/1\t-2\n" + "\t\t\t\n";
  EXPECT_EQ(parse_plan_cache(damaged), entries);
  // Another header (another version's cache, chosen among other candidates): nothing is read.
  for (const char* other : {"attnlab dense plans 2\n", "attnlab dense plans 4\n"}) {
    EXPECT_TRUE(parse_plan_cache(other + text.substr(text.find('\n') + 1)).empty()) << other;
  }
  EXPECT_TRUE(parse_plan_cache("").empty());
  // Tabs or line breaks inside a field would make another line: they become spaces.
  const std::vector<PlanCacheEntry> odd{{"a\tb\nc", "s", {DensePlan::Layout::Wide, 0, 64}, 1}};
  ASSERT_EQ(parse_plan_cache(format_plan_cache(odd)).size(), 1u);
  EXPECT_EQ(parse_plan_cache(format_plan_cache(odd))[0].machine, "a b c");
  // A file saved with CRLF line ends reads as the same entries; a carriage return inside a field
  // (which would write back as a space) passes the line over (the fuzz target found it).
  std::string crlf;
  for (const char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_EQ(parse_plan_cache(crlf), entries);
  EXPECT_TRUE(parse_plan_cache(text.substr(0, text.find('\n') + 1) + "a\rb\ts\twide full\t1\n").empty());
}

// The fuzz target's seeds (fuzz/plan_cache_fuzz.cpp), replayed with its properties.
TEST(PlanCache, TheFuzzSeedsReadBackCleanly) {
  int seeds = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ATTNLAB_FUZZ_CORPUS "/plan_cache")) {
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const std::vector<PlanCacheEntry> entries = parse_plan_cache(text.str());
    EXPECT_EQ(parse_plan_cache(format_plan_cache(entries)), entries) << entry.path();
    ++seeds;
  }
  EXPECT_GE(seeds, 4);
  std::ifstream valid(ATTNLAB_FUZZ_CORPUS "/plan_cache/valid");
  std::ostringstream text;
  text << valid.rdbuf();
  EXPECT_EQ(parse_plan_cache(text.str()).size(), 2u);
}

// The calibration's choice from its rounds: a plan displaces the default only by more than the
// default's own spread across the rounds.
TEST(DensePlans, APlanDisplacesTheDefaultOnlyBeyondItsSpread) {
  EXPECT_EQ(pick_dense_plan({{10.0, 10.5, 10.2}, {7.0, 7.2, 7.1}, {8.0, 8.1, 8.2}}), 1u);
  // 9.5 beats 10.0 by 0.5, inside the default's spread of 2: the rounds cannot tell them apart.
  EXPECT_EQ(pick_dense_plan({{10.0, 12.0, 11.0}, {9.5, 9.6, 9.7}}), 0u);
  EXPECT_EQ(pick_dense_plan({{10.0, 10.4, 10.2}, {9.5, 9.6, 9.7}}), 1u);
  EXPECT_EQ(pick_dense_plan({{7.0, 7.5}, {8.0, 7.1}}), 0u);  // the default is the quickest
  EXPECT_EQ(pick_dense_plan({{10.0}, {9.9}}), 1u);            // one round: no spread to go by
  EXPECT_EQ(pick_dense_plan({{10.0, 10.0}, {10.0, 10.0}}), 0u);  // a tie keeps the default
  // Whatever the rounds, the choice is a candidate, and one that is not the quickest is the
  // default.
  std::mt19937 rng(58);
  std::uniform_real_distribution<double> ms(1.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<std::vector<double>> times(1 + trial % 5, std::vector<double>(1 + trial % 4));
    for (auto& t : times) {
      for (double& x : t) x = ms(rng);
    }
    const size_t pick = pick_dense_plan(times);
    ASSERT_LT(pick, times.size());
    const auto best = [&](size_t i) { return *std::min_element(times[i].begin(), times[i].end()); };
    for (size_t i = 0; i < times.size(); ++i) {
      if (best(i) < best(pick)) {
        EXPECT_EQ(pick, 0u);
      }
    }
  }
}

TEST(DensePlanner, MeasuresOnceAndReadsTheCacheBack) {
  std::mt19937 rng(57);
  const Problem p = make_problem(rng, 256, 256, 16, 16, MaskKind::Causal);
  const std::filesystem::path dir = temp_dir("cache");
  const std::filesystem::path cache = dir / "sub" / "dense-plans.txt";
  DensePlan first, again, cached;
  DensePlanner planner(cache);
  const PathChoice measured = planner.choose(p, first);
  EXPECT_EQ(measured.source, "measured");
  EXPECT_EQ(measured.chosen, first.name());
  EXPECT_EQ(measured.cache, cache.string());
  EXPECT_EQ(measured.candidates.size(), candidate_dense_plans(p).size());
  EXPECT_EQ(planner.choose(p, again).source, "measured");  // this process's choice, kept
  EXPECT_EQ(again, first);
  const PathChoice read = DensePlanner(cache).choose(p, cached);
  EXPECT_EQ(read.source, "cached");
  EXPECT_EQ(cached, first);
  // A damaged cache is measured again and rewritten, never an error.
  std::ofstream(cache) << "attnlab dense plans 3\ngarbage\t\n\x01\x02";
  EXPECT_EQ(DensePlanner(cache).choose(p, cached).source, "measured");
  EXPECT_EQ(DensePlanner(cache).choose(p, cached).source, "cached");
  std::filesystem::remove_all(dir);
}

TEST(DensePlanner, ACacheItCannotWriteIsOnlyReported) {
  std::mt19937 rng(59);
  const Problem p = make_problem(rng, 128, 128, 8, 8, MaskKind::Causal);
  const std::filesystem::path dir = temp_dir("unwritable");
  std::ofstream(dir / "file") << "x";
  // Its folder would have to be a regular file.
  DensePlan plan;
  const PathChoice c = DensePlanner(dir / "file" / "dense-plans.txt").choose(p, plan);
  EXPECT_EQ(c.source, "measured");
  EXPECT_NE(c.cache.find("not written"), std::string::npos) << c.cache;
  EXPECT_EQ(DensePlanner(std::filesystem::path()).choose(p, plan).source, "measured");
  std::filesystem::remove_all(dir);
}

TEST(DensePlanner, TheEnvironmentCanForceAPlan) {
  std::mt19937 rng(61);
  const Problem p = make_problem(rng, 64, 64, 8, 8, MaskKind::Causal);
  DensePlan plan;
  ::setenv("ATTNLAB_DENSE_PLAN", "wide 16", 1);
  const PathChoice c = DensePlanner(std::filesystem::path()).choose(p, plan);
  EXPECT_EQ(c.source, "forced");
  EXPECT_EQ(plan.name(), "wide 16");
  ::setenv("ATTNLAB_DENSE_PLAN", "tall", 1);
  EXPECT_THROW(DensePlanner(std::filesystem::path()).choose(p, plan), InputError);
  ::unsetenv("ATTNLAB_DENSE_PLAN");
}

}  // namespace
}  // namespace attnlab
