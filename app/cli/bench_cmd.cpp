// `attnlab bench`: times each stage (scores, softmax, output) on random inputs, after warm-up,
// and prints medians in milliseconds and GFLOP/s (FLOPs: 2·n·m·d for each product), each as a
// fraction of the device's FP32 FMA peak, probed in the same run (BackendBench::fma_peak: the CPU's
// engine/cpu/fma_peak.hpp, the GPU's engine/gpu/gpu_fma_peak.hpp).
#include "cli/backend_select.hpp"
#include "cli/commands.hpp"
#include "engine/attention/mask.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <random>

namespace attnlab::cli {

namespace {

struct BenchArgs {
  long long n = 1024, m = 0, dk = 64, dv = 0;
  std::string mask = "none";
  std::string backend = "cpu";
  int runs = 5, warmup = 1;
  bool streaming = false;
  std::string format = "text";
  std::string gpu_tiles = "auto";
  std::string gpu_stream = "auto";
  std::string gpu_block;  // ROWSxKEYS, empty for the default
};

// The medians of the timed runs.
struct Timings {
  double scores_ms = 0, softmax_ms = 0, output_ms = 0, total_ms = 0;
  double scores_kernel_ms = 0, output_kernel_ms = 0;  // GPU: the kernels alone (StageTimes)
  bool fused = false;  // streaming: only the total was measured
  ClockLog clock;      // the device's clock during the timed runs (an NVIDIA card's)
};

// What the report prints besides the timings: the problem's sizes and the figures derived from them.
struct Figures {
  long long n = 0, m = 0, dk = 0, dv = 0;
  double scores_gflops = 0, output_gflops = 0, total_gflops = 0;
  double scores_kernel_gflops = 0, output_kernel_gflops = 0;
  double useful_flops = 0, counted_flops = 0, useful_gflops = 0;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

Matrix random_matrix(Eigen::Index rows, Eigen::Index cols, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix out(rows, cols);
  for (Eigen::Index i = 0; i < out.size(); ++i) out.data()[i] = normal(rng);
  return out;
}

void check_range(long long v, const char* flag, long long hi) {
  if (v < 1 || v > hi) {
    throw InputError(std::string(flag) + ": " + std::to_string(v) + " is out of range; it must be between 1 and " +
                     std::to_string(hi));
  }
}

// The random problem the flags describe (Q, K, V from N(0, 1), seed 1234), its flags checked.
Problem bench_problem(const BenchArgs& args, Figures& f) {
  f.n = args.n;
  f.m = args.m > 0 ? args.m : args.n;
  f.dk = args.dk;
  f.dv = args.dv > 0 ? args.dv : args.dk;
  check_range(f.n, "--n", 1 << 24);
  check_range(f.m, "--m", 1 << 24);
  check_range(f.dk, "--dk", 1 << 20);
  check_range(f.dv, "--dv", 1 << 20);
  check_range(args.runs, "--runs", 100000);
  if (args.warmup < 0 || args.warmup > 100000) {
    throw InputError("--warmup: " + std::to_string(args.warmup) + " is out of range; it must be between 0 and 100000");
  }
  Problem p;
  std::mt19937 rng(1234);
  p.Q = random_matrix(f.n, f.dk, rng);
  p.K = random_matrix(f.m, f.dk, rng);
  p.V = random_matrix(f.m, f.dv, rng);
  p.options.mask = parse_mask_spec(args.mask, "--mask");
  validate_problem(p);
  return p;
}

// `warmup` untimed runs, then the medians of `runs` timed ones.
Timings time_runs(BackendBench& bench, const Problem& p, bool streaming, int runs, int warmup) {
  const auto once = [&] { return streaming ? bench.time_streaming(p) : bench.time_stages(p); };
  for (int i = 0; i < warmup; ++i) once();
  std::vector<double> scores, softmax, output, total, scores_kernel, output_kernel;
  Timings t;
  bench.start_clock_log();
  for (int i = 0; i < runs; ++i) {
    const StageTimes s = once();
    t.fused = s.fused;
    scores.push_back(s.scores_ms);
    softmax.push_back(s.softmax_ms);
    output.push_back(s.output_ms);
    scores_kernel.push_back(s.scores_kernel_ms);
    output_kernel.push_back(s.output_kernel_ms);
    total.push_back(s.fused ? s.total_ms : s.scores_ms + s.softmax_ms + s.output_ms);
  }
  t.clock = bench.stop_clock_log();
  t.scores_ms = median(scores);
  t.softmax_ms = median(softmax);
  t.output_ms = median(output);
  t.scores_kernel_ms = median(scores_kernel);
  t.output_kernel_ms = median(output_kernel);
  t.total_ms = median(total);
  return t;
}

double gflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : 0.0; }

// GFLOP/s of each product and of the whole, counted in full (2·n·m·d per product) and over the
// cells the mask leaves visible (2·n²·d per product, half of the counted, for a causal square).
void add_rates(Figures& f, const Problem& p, const Timings& t) {
  const double nm = static_cast<double>(f.n) * static_cast<double>(f.m);
  const double scores_flops = 2 * nm * static_cast<double>(f.dk), output_flops = 2 * nm * static_cast<double>(f.dv);
  f.scores_gflops = gflops(scores_flops, t.scores_ms);
  f.output_gflops = gflops(output_flops, t.output_ms);
  f.scores_kernel_gflops = gflops(scores_flops, t.scores_kernel_ms);
  f.output_kernel_gflops = gflops(output_flops, t.output_kernel_ms);
  f.counted_flops = scores_flops + output_flops;
  f.total_gflops = gflops(f.counted_flops, t.total_ms);
  f.useful_flops = 2 * static_cast<double>(p.options.mask.visible_cells(f.n, f.m)) * static_cast<double>(f.dk + f.dv);
  f.useful_gflops = gflops(f.useful_flops, t.total_ms);
}

// The dense path's choice (BackendBench::path_choice), where the backend made one.
nlohmann::ordered_json calibration_json(const PathChoice& path) {
  nlohmann::ordered_json out;
  out["chosen"] = path.chosen;
  out["source"] = path.source;
  out["cache"] = path.cache;
  out["candidates"] = nlohmann::ordered_json::array();
  for (const PathChoice::Candidate& c : path.candidates) out["candidates"].push_back({{"plan", c.plan}, {"ms", c.ms}});
  return out;
}

nlohmann::ordered_json bench_json(const Backend& backend, BackendBench& bench, const Problem& p, const BenchArgs& args,
                                  const Figures& f, const Timings& t, const PathChoice& path) {
  const FmaPeak& peak = bench.fma_peak();
  const auto fraction = [&](double gf) -> nlohmann::ordered_json {
    if (!(peak.gflops > 0)) return nullptr;
    return gf / peak.gflops;
  };
  nlohmann::ordered_json out;
  out["backend"] = std::string(backend.name());
  out["kernels"] = t.fused ? bench.streaming_kernels(p) : bench.kernels();
  out["n"] = f.n;
  out["m"] = f.m;
  out["d_k"] = f.dk;
  out["d_v"] = f.dv;
  out["mask"] = mask_spec(p.options.mask);
  out["runs"] = args.runs;
  if (t.fused) {
    // Streaming interleaves the stages tile by tile: no per-stage times to report.
    out["streaming"] = true;
    out["stages"]["scores"] = {{"ms", nullptr}, {"gflops", nullptr}, {"fraction_of_peak", nullptr}};
    out["stages"]["softmax"] = {{"ms", nullptr}};
    out["stages"]["output"] = {{"ms", nullptr}, {"gflops", nullptr}, {"fraction_of_peak", nullptr}};
  } else {
    out["stages"]["scores"] = {{"ms", t.scores_ms}, {"gflops", f.scores_gflops}, {"fraction_of_peak", fraction(f.scores_gflops)}};
    out["stages"]["softmax"] = {{"ms", t.softmax_ms}};
    out["stages"]["output"] = {{"ms", t.output_ms}, {"gflops", f.output_gflops}, {"fraction_of_peak", fraction(f.output_gflops)}};
    // The GPU's kernels alone, by its own clock, where the backend measured them.
    const auto kernel = [&](const char* stage, double ms, double rate) {
      if (ms <= 0) return;
      out["stages"][stage]["kernel_ms"] = ms;
      out["stages"][stage]["kernel_gflops"] = rate;
      out["stages"][stage]["kernel_fraction_of_peak"] = fraction(rate);
    };
    kernel("scores", t.scores_kernel_ms, f.scores_kernel_gflops);
    kernel("output", t.output_kernel_ms, f.output_kernel_gflops);
  }
  out["total_ms"] = t.total_ms;
  out["gflops"] = f.total_gflops;
  out["peak_gflops"] = peak.gflops;
  out["fraction_of_peak"] = fraction(f.total_gflops);
  out["useful_gflops"] = f.useful_gflops;
  out["useful_fraction_of_peak"] = fraction(f.useful_gflops);
  out["peak_probe"] = {{"isa", peak.isa}, {"threads", peak.threads}, {"ms", peak.probe_ms}};
  // The card's SM clock during the timed runs, where it can be read (an NVIDIA card); null elsewhere.
  out["clock"] = nullptr;
  if (!t.clock.empty()) {
    const auto [low, high] = std::minmax_element(t.clock.mhz.begin(), t.clock.mhz.end());
    out["clock"] = {{"sm_median_mhz", t.clock.median()}, {"sm_min_mhz", *low}, {"sm_max_mhz", *high},
                    {"top_mhz", t.clock.top_mhz}, {"samples", t.clock.mhz.size()}, {"low", t.clock.low()}};
  }
  if (t.fused && backend.kind() == BackendKind::Cpu) {
    // The streaming tiles, from the cache sizes this machine reports (0: not reported).
    const StreamingTiles tiles = streaming_tile_sizes(f.dk, f.dv);
    out["tiles"] = {{"rows", tiles.rows}, {"cols", tiles.cols}, {"l1d_bytes", tiles.l1d_bytes}, {"l2_bytes", tiles.l2_bytes}};
  }
  if (!path.chosen.empty()) out["calibration"] = calibration_json(path);
  return out;
}

// "  73.1% of peak" after a GFLOP/s figure, or nothing without a peak.
std::string of_peak(const FmaPeak& peak, double gf) {
  if (!(peak.gflops > 0)) return "";
  return "  " + percent(100 * gf / peak.gflops, 1, 5) + " of peak";
}

// A stage line's figures: "  12.345 ms  123.45 GFLOP/s  73.1% of peak" after its name.
std::string ms_and_rate(const FmaPeak& peak, double ms, int ms_width, double gflops) {
  return fixed_decimals(ms, 3, ms_width) + " ms  " + fixed_decimals(gflops, 2, 8) + " GFLOP/s" + of_peak(peak, gflops);
}

// The stage lines of the text report: scores, softmax and output, or the streaming path's tiles.
void print_stage_lines(std::ostream& out, const Backend& backend, const FmaPeak& peak, const Figures& f, const Timings& t) {
  if (t.fused) {
    out << "  streaming: scores, softmax and output interleaved tile by tile";
    if (backend.kind() == BackendKind::Cpu) {
      const StreamingTiles tiles = streaming_tile_sizes(f.dk, f.dv);
      out << ", " << tiles.rows << " × " << tiles.cols << " tiles (L1d " << (tiles.l1d_bytes >> 10) << " KiB, L2 "
          << (tiles.l2_bytes >> 10) << " KiB)";
    }
    out << "\n";
    return;
  }
  out << "  scores   " << ms_and_rate(peak, t.scores_ms, 10, f.scores_gflops) << "\n";
  const auto kernel_line = [&](double ms, double rate) {
    if (ms > 0) out << "    kernels " << ms_and_rate(peak, ms, 9, rate) << " (the GPU's own clock)\n";
  };
  kernel_line(t.scores_kernel_ms, f.scores_kernel_gflops);
  out << "  softmax  " << fixed_decimals(t.softmax_ms, 3, 10) << " ms\n";
  out << "  output   " << ms_and_rate(peak, t.output_ms, 10, f.output_gflops) << "\n";
  kernel_line(t.output_kernel_ms, f.output_kernel_gflops);
}

void print_text(std::ostream& out, const Backend& backend, BackendBench& bench, const Problem& p, const BenchArgs& args,
                const Figures& f, const Timings& t, const PathChoice& path) {
  const FmaPeak& peak = bench.fma_peak();
  const bool on_cpu = backend.kind() == BackendKind::Cpu;
  const std::string kernels = t.fused ? bench.streaming_kernels(p) : bench.kernels();
  out << "bench: " << backend.description() << (on_cpu ? "" : ", " + kernels) << ", n = " << f.n
      << ", m = " << f.m << ", d_k = " << f.dk << ", d_v = " << f.dv << ", mask " << mask_spec(p.options.mask)
      << ", median of " << args.runs << " runs after " << args.warmup << " warm-up\n";
  print_stage_lines(out, backend, peak, f, t);
  out << "  total    " << ms_and_rate(peak, t.total_ms, 10, f.total_gflops) << "\n";
  if (f.useful_flops < f.counted_flops) {
    out << "  useful   " << std::string(13, ' ') << "  " << fixed_decimals(f.useful_gflops, 2, 8) << " GFLOP/s"
        << of_peak(peak, f.useful_gflops) << " (visible cells only)\n";
  }
  out << "  peak     " << fixed_decimals(peak.gflops, 2, 8) << " GFLOP/s: " << (on_cpu ? "this machine's" : "this GPU's")
      << " FP32 FMA peak " << (on_cpu ? "on" : "over") << " " << peak.threads << " " << (on_cpu ? "threads" : "invocations")
      << " (" << peak.isa << ", probed in " << fixed_decimals(peak.probe_ms, 0) << " ms)\n";
  if (!t.clock.empty()) {
    out << "  clock    SM " << fixed_decimals(t.clock.median(), 0) << " MHz while timed (median of " << t.clock.mhz.size()
        << " samples) of its top " << fixed_decimals(t.clock.top_mhz, 0) << " MHz"
        << (t.clock.low() ? ": the card stayed below its top clock, so these times are slower than it sustains" : "")
        << "\n";
  }
  if (!path.chosen.empty()) {
    out << "  plan     " << path.chosen << " (" << path.source
        << (path.candidates.size() > 1 ? ", the quickest of " + std::to_string(path.candidates.size()) : std::string())
        << (path.cache.empty() ? std::string() : "; cache " + path.cache) << ")\n";
  }
}

}  // namespace

Runner add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time each stage of attention on random inputs");
  auto args = std::make_shared<BenchArgs>();
  cmd->add_option("--n", args->n, "Query rows (default 1024)");
  cmd->add_option("--m", args->m, "Keys (default n)");
  cmd->add_option("--dk", args->dk, "d_k (default 64)");
  cmd->add_option("--dv", args->dv, "d_v (default d_k)");
  cmd->add_option("--mask", args->mask, "none | causal | padding:L | prefix:P | window:W");
  cmd->add_option("--backend", args->backend, "cpu | gpu | auto (default cpu)");
  cmd->add_option("--runs", args->runs, "Timed runs (default 5)");
  cmd->add_option("--warmup", args->warmup, "Untimed runs first (default 1)");
  cmd->add_flag("--streaming", args->streaming,
                "Time the streaming path that never holds n × m matrices (chosen by itself where they would not fit "
                "in memory, as compute does)");
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--gpu-tiles", args->gpu_tiles,
                  "How the GPU's products reach their operands: texture | shared | auto (default: texture on a "
                  "software renderer, shared on a GPU)")
      ->check(CLI::IsMember({"auto", "texture", "shared"}));
  cmd->add_option("--gpu-stream", args->gpu_stream,
                  "Which GPU kernels stream: rows (one invocation walks each row) | blocks (a workgroup per "
                  "block of rows, FlashAttention-2's decomposition) | auto (default: rows on a software renderer, "
                  "blocks on a GPU)")
      ->check(CLI::IsMember({"auto", "rows", "blocks"}));
  cmd->add_option("--gpu-block", args->gpu_block,
                  "The GPU's streaming blocks as ROWSxKEYS: query rows per workgroup (32, 64, 128 or 256) and keys "
                  "per tile (8, 16, 32 or 64; fewer where the shared memory is smaller). Default 64x32")
      ->check([](const std::string& v) -> std::string {
        const size_t x = v.find('x');
        const auto member = [](const std::string& s, std::initializer_list<const char*> of) {
          return std::any_of(of.begin(), of.end(), [&](const char* o) { return s == o; });
        };
        if (x == std::string::npos || !member(v.substr(0, x), {"32", "64", "128", "256"}) ||
            !member(v.substr(x + 1), {"8", "16", "32", "64"})) {
          return "'" + v + "' is not ROWSxKEYS with ROWS 32, 64, 128 or 256 and KEYS 8, 16, 32 or 64";
        }
        return "";
      });
  return [args]() {
    Figures f;
    const Problem p = bench_problem(*args, f);
    GpuBackendOptions gpu;
    if (args->gpu_tiles == "texture") gpu.tiles = GpuTiles::Texture;
    if (args->gpu_tiles == "shared") gpu.tiles = GpuTiles::Shared;
    if (args->gpu_stream == "rows") gpu.stream = GpuStream::Rows;
    if (args->gpu_stream == "blocks") gpu.stream = GpuStream::Blocks;
    if (!args->gpu_block.empty()) {
      const size_t x = args->gpu_block.find('x');
      gpu.block = {std::stoul(args->gpu_block.substr(0, x)), std::stoul(args->gpu_block.substr(x + 1))};
    }
    const std::unique_ptr<Backend> backend = select_backend(args->backend, std::cerr, gpu);
    const std::unique_ptr<BackendBench> bench = make_bench(*backend);
    // As compute chooses: the streaming path where the dense n × m stages would not fit in memory.
    const bool streaming = args->streaming || !dense_fits(f.n, f.m);
    if (streaming && !args->streaming) {
      std::cerr << "attnlab: the dense n×m stages would need " << human_bytes(dense_bytes(f.n, f.m)) << " (limit "
                << human_bytes(dense_memory_limit()) << "); timing the streaming path instead\n";
    }
    // The dense path's plan, measured now on this machine where it was not before (untimed).
    const PathChoice path = streaming ? PathChoice{} : bench->path_choice(p);
    const Timings t = time_runs(*bench, p, streaming, args->runs, args->warmup);
    add_rates(f, p, t);
    // The FMA peak (the CPU's, or the GPU's through a compute shader) after the timed runs, so that
    // the probe never heats or loads them.
    bench->fma_peak();
    if (args->format == "json") std::cout << bench_json(*backend, *bench, p, *args, f, t, path).dump(2) << "\n";
    else print_text(std::cout, *backend, *bench, p, *args, f, t, path);
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
