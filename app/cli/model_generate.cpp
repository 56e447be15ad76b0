// `attnlab model --generate`; see model_generate.hpp.
#include "cli/model_generate.hpp"

#include "engine/cpu/fma_peak.hpp"
#include "engine/text/text_format.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <iostream>

namespace attnlab::cli {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

}  // namespace

double process_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) * 1e-6;
}

void add_generate_options(CLI::App& cmd, GenerateArgs& g) {
  g.generate = cmd.add_option("--generate", g.count,
                 "Write N more tokens after the text, one at a time over a KV cache (each runs only its own position); the JSON adds "
                 "\"generated\" and \"attention\" covers the written tokens too");
  g.temperature = cmd.add_option("--temperature", g.sampling.temperature,
                                 "With --generate: divide the logits by T before drawing (default 1; 0 takes the most probable token)");
  g.top_k = cmd.add_option("--top-k", g.sampling.top_k, "With --generate: draw only from the K most probable tokens (default 0: all)");
  g.top_p = cmd.add_option("--top-p", g.sampling.top_p,
                           "With --generate: draw only from the fewest most probable tokens whose probability reaches P (default 1: all)");
  g.seed = cmd.add_option("--seed", g.sampling.seed, "With --generate: the draws' seed (default 0); the same seed writes the same text");
  g.cache_window = cmd.add_option("--cache-window", g.cache.window,
                                  "With --generate: a cache that keeps only the last W positions (and the first S, --cache-sinks): StreamingLLM's "
                                  "policy, positions renumbered within the cache");
  g.cache_sinks = cmd.add_option("--cache-sinks", g.cache.sinks, "With --cache-window: the first positions always kept, the attention sinks (default 4)");
}

void check_generate_args(const GenerateArgs& g) {
  if (g.count == 0 && !(g.generate && g.generate->count() > 0)) {
    for (const CLI::Option* o : {g.temperature, g.top_k, g.top_p, g.seed, g.cache_window, g.cache_sinks}) {
      if (o && o->count() > 0) throw InputError(o->get_name() + " goes with --generate N (how many tokens to write)");
    }
    return;
  }
  if (g.count < 1) throw InputError("--generate " + std::to_string(g.count) + ": give how many tokens to write, 1 or more");
  if (g.cache_sinks && g.cache_sinks->count() > 0 && !(g.cache_window && g.cache_window->count() > 0)) {
    throw InputError("--cache-sinks goes with --cache-window W (how many of the last positions the cache keeps)");
  }
  model::check_sampling(g.sampling);
}

void print_forward_timing(const model::LanguageModel& m, std::int64_t n, double load_ms, double wall_ms, double cpu_ms) {
  // The forward's matrix products, as LanguageModel::forward_flops counts what runs (GPT-2: per
  // layer 24·n·d² for the four Conv1D products, and QKᵀ and AV over the keys each block of query
  // rows sees, about 2·n²·d at n = 1024; plus 2·d·V for the next-token logits of the last position).
  const double flops = m.forward_flops(n);
  const FmaPeak& peak = machine_fma_peak();
  const double gflops = flops / wall_ms * 1e-6;
  // By CPU time: what the threads' own time gives, as the peak's probe measures; on a host where
  // other processes take turns with ours, wall time counts their turns too.
  const double cpu_fraction = flops / (cpu_ms / peak.threads) * 1e-6 / peak.gflops;
  std::cerr << "timing: load " << fixed_decimals(load_ms, 1) << " ms, forward " << fixed_decimals(wall_ms, 1) << " ms ("
            << fixed_decimals(gflops, 1) << " GFLOP/s, " << fixed_decimals(gflops / peak.gflops, 3) << " of the FMA peak "
            << fixed_decimals(peak.gflops, 1) << " GFLOP/s on " << peak.threads << " threads; by CPU time " << fixed_decimals(cpu_ms, 1)
            << " ms on " << peak.threads << " threads, " << fixed_decimals(cpu_fraction, 3) << ")\n";
}

model::ModelRun run_generation(const model::LanguageModel& m, const std::vector<int>& ids, const model::ForwardOptions& opt,
                               const GenerateArgs& g, bool timing, double load_ms) {
  if (g.cache.window > 0 || (g.cache_window && g.cache_window->count() > 0)) {
    model::check_cache_bound(m, g.cache);
    model::ModelRun run = model::run_model(m, ids, opt);
    model::Sampler sampler(g.sampling.seed);
    const auto t0 = Clock::now();
    run.generated = model::generate_bounded(m, ids, sampler, g.count, g.sampling, 10, g.cache);
    if (timing) {
      std::cerr << "timing: load " << fixed_decimals(load_ms, 1) << " ms; the prompt and " << run.generated.size()
                << " tokens over a cache of at most " << g.cache.kept() << " positions in " << fixed_decimals(ms_since(t0), 1) << " ms\n";
    }
    run.cache = g.cache;
    return run;
  }
  model::check_generate(m, static_cast<std::int64_t>(ids.size()), g.count);
  model::SequenceOptions so;
  so.keep_weights = opt.keep_weights;
  so.keep_all_qkv = opt.keep_all_qkv;
  so.qkv_layer = opt.qkv_layer;
  so.qkv_head = opt.qkv_head;
  model::CachedSequence seq(m, so);
  const double cpu0 = process_cpu_ms();
  const auto t0 = Clock::now();
  seq.assign(ids, "--ids");
  const double prompt_ms = ms_since(t0), prompt_cpu = process_cpu_ms() - cpu0;

  model::Sampler sampler(g.sampling.seed);
  model::GenerateOptions go;
  go.count = g.count;
  go.sampling = g.sampling;
  std::vector<double> step_ms;
  auto t = Clock::now();
  std::vector<model::DrawnToken> written = model::generate(seq, sampler, go, [&](const model::DrawnToken&) {
    step_ms.push_back(ms_since(t));
    t = Clock::now();
    return true;
  });
  if (timing) {
    print_forward_timing(m, static_cast<std::int64_t>(ids.size()), load_ms, prompt_ms, prompt_cpu);
    double sum = 0;
    for (double s : step_ms) sum += s;
    const double mean = sum / static_cast<double>(step_ms.size());
    std::vector<double> sorted = step_ms;
    std::sort(sorted.begin(), sorted.end());
    // What a token would cost without the cache: the whole sequence run again, at its final length.
    model::ForwardOptions whole = opt;
    whole.top_k = 1;
    const auto w0 = Clock::now();
    (void)m.forward(seq.ids(), whole);
    const double whole_ms = ms_since(w0);
    std::cerr << "timing: generated " << step_ms.size() << " tokens, " << fixed_decimals(mean, 2) << " ms a token (median "
              << fixed_decimals(sorted[sorted.size() / 2], 2) << " ms), " << fixed_decimals(mean / prompt_ms, 4)
              << " of the prompt's forward; without the cache each would run the whole sequence: " << seq.size() << " tokens in "
              << fixed_decimals(whole_ms, 1) << " ms, " << fixed_decimals(whole_ms / mean, 1) << "x a cached token\n";
  }
  return model::sequence_run(seq, std::move(written), opt.top_k);
}

}  // namespace attnlab::cli
