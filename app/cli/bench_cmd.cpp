// `attnlab bench`: times each stage (scores, softmax, output) on random inputs, after warm-up,
// and prints medians in milliseconds and GFLOP/s (FLOPs: 2·n·m·d for each product), each as a
// fraction of the device's FP32 FMA peak, probed in the same run (BackendBench::fma_peak: the CPU's
// engine/cpu/fma_peak.hpp, the GPU's engine/gpu/gpu_fma_peak.hpp).
#include "cli/backend_select.hpp"
#include "cli/commands.hpp"
#include "engine/attention/mask.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/gpu/backend_choice.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <random>

namespace attnlab::cli {

namespace {

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

// Cells (i, j) the mask leaves visible, which the fast paths alone multiply (blocked tiles are
// skipped); n·m without a mask.
double visible_cells(const Mask& mask, Eigen::Index n, Eigen::Index m) {
  if (mask.kind == MaskKind::None) return static_cast<double>(n) * static_cast<double>(m);
  double cells = 0;
  for (Eigen::Index i = 0; i < n; ++i) {
    if (mask.kind == MaskKind::Custom) {
      for (Eigen::Index j = 0; j < m; ++j) cells += mask.blocked(i, j) ? 0 : 1;
      continue;
    }
    Eigen::Index first = 0, last = m;
    mask.visible_range(i, m, first, last);
    cells += static_cast<double>(std::max<Eigen::Index>(0, last - first));
  }
  return cells;
}

}  // namespace

Runner add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time each stage of attention on random inputs");
  struct Args {
    long long n = 1024, m = 0, dk = 64, dv = 0;
    std::string mask = "none";
    std::string backend = "cpu";
    int runs = 5, warmup = 1;
    bool streaming = false;
    std::string format = "text";
    std::string gpu_tiles = "auto";
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--n", args->n, "Query rows (default 1024)");
  cmd->add_option("--m", args->m, "Keys (default n)");
  cmd->add_option("--dk", args->dk, "d_k (default 64)");
  cmd->add_option("--dv", args->dv, "d_v (default d_k)");
  cmd->add_option("--mask", args->mask, "none | causal | padding:L | prefix:P | window:W");
  cmd->add_option("--backend", args->backend, "cpu | gpu | auto (default cpu)");
  cmd->add_option("--runs", args->runs, "Timed runs (default 5)");
  cmd->add_option("--warmup", args->warmup, "Untimed runs first (default 1)");
  cmd->add_flag("--streaming", args->streaming, "Time the streaming path that never holds n × m matrices");
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--gpu-tiles", args->gpu_tiles,
                  "How the GPU's products reach their operands: texture | shared | auto (default: texture on a "
                  "software renderer, shared on a GPU)")
      ->check(CLI::IsMember({"auto", "texture", "shared"}));
  return [args]() {
    const long long m = args->m > 0 ? args->m : args->n;
    const long long dv = args->dv > 0 ? args->dv : args->dk;
    auto check = [](long long v, const char* flag, long long hi) {
      if (v < 1 || v > hi) {
        throw InputError(std::string(flag) + ": " + std::to_string(v) + " is out of range; it must be between 1 and " +
                         std::to_string(hi));
      }
    };
    check(args->n, "--n", 1 << 24);
    check(m, "--m", 1 << 24);
    check(args->dk, "--dk", 1 << 20);
    check(dv, "--dv", 1 << 20);
    check(args->runs, "--runs", 100000);
    if (args->warmup < 0 || args->warmup > 100000) {
      throw InputError("--warmup: " + std::to_string(args->warmup) + " is out of range; it must be between 0 and 100000");
    }
    Problem p;
    std::mt19937 rng(1234);
    p.Q = random_matrix(args->n, args->dk, rng);
    p.K = random_matrix(m, args->dk, rng);
    p.V = random_matrix(m, dv, rng);
    p.options.mask = parse_mask_spec(args->mask, "--mask");
    validate_problem(p);
    GpuBackendOptions gpu;
    if (args->gpu_tiles == "texture") gpu.tiles = GpuTiles::Texture;
    if (args->gpu_tiles == "shared") gpu.tiles = GpuTiles::Shared;
    auto backend = select_backend(args->backend, std::cerr, gpu);
    const std::unique_ptr<BackendBench> bench = make_bench(*backend);
    const auto once = [&] { return args->streaming ? bench->time_streaming(p) : bench->time_stages(p); };
    for (int i = 0; i < args->warmup; ++i) once();
    std::vector<double> scores, softmax, output, total;
    bool fused = false;
    for (int i = 0; i < args->runs; ++i) {
      const StageTimes t = once();
      fused = t.fused;
      scores.push_back(t.scores_ms);
      softmax.push_back(t.softmax_ms);
      output.push_back(t.output_ms);
      total.push_back(t.fused ? t.total_ms : t.scores_ms + t.softmax_ms + t.output_ms);
    }
    const double nm = static_cast<double>(args->n) * static_cast<double>(m);
    const double scores_flops = 2 * nm * static_cast<double>(args->dk), output_flops = 2 * nm * static_cast<double>(dv);
    const double scores_ms = median(scores), softmax_ms = median(softmax), output_ms = median(output);
    const double total_ms = median(total);
    auto gflops = [](double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : 0.0; };
    // Useful FLOPs: the products over the cells the mask leaves visible (2·n²·d per product, half
    // of the counted 4·n·m·d, for a causal square).
    const double useful_flops =
        2 * visible_cells(p.options.mask, args->n, m) * static_cast<double>(args->dk + dv);
    // The device's FMA peak (the CPU's, or the GPU's through a compute shader), after the timed
    // runs so that the probe never heats or loads them.
    const bool on_cpu = backend->kind() == BackendKind::Cpu;
    const FmaPeak& peak = bench->fma_peak();
    const auto fraction = [&](double gf) -> nlohmann::ordered_json {
      if (!(peak.gflops > 0)) return nullptr;
      return gf / peak.gflops;
    };
    if (args->format == "json") {
      nlohmann::ordered_json out;
      out["backend"] = std::string(backend->name());
      out["kernels"] = bench->kernels();
      out["n"] = args->n;
      out["m"] = m;
      out["d_k"] = args->dk;
      out["d_v"] = dv;
      out["mask"] = mask_spec(p.options.mask);
      out["runs"] = args->runs;
      if (fused) {
        // Streaming interleaves the stages tile by tile: no per-stage times to report.
        out["streaming"] = true;
        out["stages"]["scores"] = {{"ms", nullptr}, {"gflops", nullptr}, {"fraction_of_peak", nullptr}};
        out["stages"]["softmax"] = {{"ms", nullptr}};
        out["stages"]["output"] = {{"ms", nullptr}, {"gflops", nullptr}, {"fraction_of_peak", nullptr}};
      } else {
        const double sg = gflops(scores_flops, scores_ms), og = gflops(output_flops, output_ms);
        out["stages"]["scores"] = {{"ms", scores_ms}, {"gflops", sg}, {"fraction_of_peak", fraction(sg)}};
        out["stages"]["softmax"] = {{"ms", softmax_ms}};
        out["stages"]["output"] = {{"ms", output_ms}, {"gflops", og}, {"fraction_of_peak", fraction(og)}};
      }
      out["total_ms"] = total_ms;
      const double total_gflops = gflops(scores_flops + output_flops, total_ms);
      const double useful_gflops = gflops(useful_flops, total_ms);
      out["gflops"] = total_gflops;
      out["peak_gflops"] = peak.gflops;
      out["fraction_of_peak"] = fraction(total_gflops);
      out["useful_gflops"] = useful_gflops;
      out["useful_fraction_of_peak"] = fraction(useful_gflops);
      out["peak_probe"] = {{"isa", peak.isa}, {"threads", peak.threads}, {"ms", peak.probe_ms}};
      if (fused && on_cpu) {
        // The streaming tiles, from the cache sizes this machine reports (0: not reported).
        const StreamingTiles t = streaming_tile_sizes(args->dk, dv);
        out["tiles"] = {{"rows", t.rows}, {"cols", t.cols}, {"l1d_bytes", t.l1d_bytes}, {"l2_bytes", t.l2_bytes}};
      }
      std::cout << out.dump(2) << "\n";
    } else {
      char line[320];
      // "  73.1% of peak" after a GFLOP/s figure, or nothing without a peak.
      const auto of_peak = [&](double gf) -> std::string {
        if (!(peak.gflops > 0)) return "";
        char buf[64];
        std::snprintf(buf, sizeof buf, "  %5.1f%% of peak", 100 * gf / peak.gflops);
        return buf;
      };
      std::cout << "bench: " << backend->description() << (on_cpu ? "" : ", " + bench->kernels())
                << ", n = " << args->n << ", m = " << m << ", d_k = " << args->dk << ", d_v = " << dv << ", mask "
                << mask_spec(p.options.mask) << ", median of " << args->runs << " runs after " << args->warmup
                << " warm-up\n";
      if (fused) {
        std::cout << "  streaming: scores, softmax and output interleaved tile by tile";
        if (on_cpu) {
          const StreamingTiles t = streaming_tile_sizes(args->dk, dv);
          std::cout << ", " << t.rows << " × " << t.cols << " tiles (L1d " << (t.l1d_bytes >> 10) << " KiB, L2 "
                    << (t.l2_bytes >> 10) << " KiB)";
        }
        std::cout << "\n";
      } else {
        const double sg = gflops(scores_flops, scores_ms), og = gflops(output_flops, output_ms);
        std::snprintf(line, sizeof line, "  scores   %10.3f ms  %8.2f GFLOP/s%s\n", scores_ms, sg, of_peak(sg).c_str());
        std::cout << line;
        std::snprintf(line, sizeof line, "  softmax  %10.3f ms\n", softmax_ms);
        std::cout << line;
        std::snprintf(line, sizeof line, "  output   %10.3f ms  %8.2f GFLOP/s%s\n", output_ms, og, of_peak(og).c_str());
        std::cout << line;
      }
      const double total_gflops = gflops(scores_flops + output_flops, total_ms);
      std::snprintf(line, sizeof line, "  total    %10.3f ms  %8.2f GFLOP/s%s\n", total_ms, total_gflops,
                    of_peak(total_gflops).c_str());
      std::cout << line;
      if (useful_flops < scores_flops + output_flops) {
        const double useful_gflops = gflops(useful_flops, total_ms);
        std::snprintf(line, sizeof line, "  useful   %13s  %8.2f GFLOP/s%s (visible cells only)\n", "",
                      useful_gflops, of_peak(useful_gflops).c_str());
        std::cout << line;
      }
      if (on_cpu) {
        std::snprintf(line, sizeof line,
                      "  peak     %8.2f GFLOP/s: this machine's FP32 FMA peak on %d threads (%s, probed in %.0f ms)\n",
                      peak.gflops, peak.threads, peak.isa.c_str(), peak.probe_ms);
      } else {
        std::snprintf(line, sizeof line,
                      "  peak     %8.2f GFLOP/s: this GPU's FP32 FMA peak over %d invocations (%s, probed in %.0f ms)\n",
                      peak.gflops, peak.threads, peak.isa.c_str(), peak.probe_ms);
      }
      std::cout << line;
    }
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
