// `attnlab model … --generate N [--temperature T] [--top-k K] [--top-p P] [--seed S]`: its flags, the
// prompt run over a KV cache and the tokens written after it, and their --timing lines
// (docs/MODELS.md, "Generation").
#pragma once

#include "engine/model/bounded_cache.hpp"
#include "engine/model/generate.hpp"

#include <CLI/CLI.hpp>

#include <memory>
#include <vector>

namespace attnlab::cli {

struct GenerateArgs {
  int count = 0;  // --generate N; 0: no generation
  model::SamplingOptions sampling;
  model::CacheBound cache;  // --cache-window W --cache-sinks S; window 0: the whole cache
  CLI::Option *generate = nullptr, *temperature = nullptr, *top_k = nullptr, *top_p = nullptr, *seed = nullptr, *cache_window = nullptr,
              *cache_sinks = nullptr;  // to tell whether given
};

// Registers --generate, --temperature, --top-k, --top-p, --seed, --cache-window and --cache-sinks
// on `model`'s subcommand.
void add_generate_options(CLI::App& cmd, GenerateArgs& g);

// Throws InputError: a sampling or cache flag without --generate, --cache-sinks without
// --cache-window, or one out of range (check_sampling).
void check_generate_args(const GenerateArgs& g);

// Runs `ids` over a cache and writes g.count tokens after them (the forward keeps what `opt` asks:
// every head's weights, one head's q, k, v, the top next tokens). With `timing`, prints on stderr
// the prompt's forward as `attnlab model --timing` prints a forward, then the milliseconds per
// generated token and what running the whole sequence again would cost at its final length. With
// --cache-window, the tokens are written over the bounded cache (bounded_cache.hpp) and the run's
// attention is the prompt's.
model::ModelRun run_generation(const model::LanguageModel& m, const std::vector<int>& ids, const model::ForwardOptions& opt,
                               const GenerateArgs& g, bool timing, double load_ms);

// The `timing:` line of one forward: its time, GFLOP/s and fraction of the FMA peak by wall time and
// by the process's CPU time (which a loaded host does not lower as much).
void print_forward_timing(const model::LanguageModel& m, std::int64_t n, double load_ms, double wall_ms, double cpu_ms);

// The process's CPU time so far, every thread's, in milliseconds.
double process_cpu_ms();

}  // namespace attnlab::cli
