// `attnlab scaling`: Exercise 2.3.1's d_k sweep (Section 2.3) on the CPU or the GPU.
#include "cli/backend_select.hpp"
#include "cli/commands.hpp"
#include "engine/gpu/backend_choice.hpp"
#include "engine/lessons/lesson_json.hpp"
#include "engine/lessons/scaling.hpp"
#include "engine/text/text_format.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>

namespace attnlab::cli {

namespace {

std::vector<int> parse_dk_list(const std::string& text) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (item.empty() || used != item.size()) {
      throw InputError("--dk: '" + item + "' is not a whole number; expected a comma-separated list such as 8,64,512,4096");
    }
    if (value < 1 || value > kScalingMaxDk) {
      throw InputError("--dk: " + item + " is out of range; each d_k must be between 1 and " + std::to_string(kScalingMaxDk));
    }
    out.push_back(static_cast<int>(value));
    pos = comma + 1;
  }
  return out;
}

}  // namespace

Runner add_scaling_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("scaling", "Exercise 2.3.1: how d_k inflates the logits and saturates softmax");
  struct Args {
    std::string dk = "8,64,512,4096";
    int keys = 10;
    int queries = 1;
    long long trials = 1000;
    unsigned long long seed = 42;
    std::string backend = "auto";
    std::string format = "text";
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("--dk", args->dk, "Comma-separated d_k values (default 8,64,512,4096)");
  cmd->add_option("--keys", args->keys, "Keys per row (default 10)");
  cmd->add_option("--queries", args->queries, "Query rows per trial (default 1)");
  cmd->add_option("--trials", args->trials, "Independent draws per d_k (default 1000)");
  cmd->add_option("--seed", args->seed, "Random seed (default 42)");
  cmd->add_option("--backend", args->backend, "cpu | gpu | auto");
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  return [args]() {
    ScalingOptions o;
    o.d_ks = parse_dk_list(args->dk);
    o.keys = args->keys;
    o.queries = args->queries;
    o.trials = args->trials;
    o.seed = args->seed;
    validate_scaling_options(o);
    auto backend = select_backend(args->backend, std::cerr);
    auto sampler = make_scaling_sampler(*backend);
    const ScalingResult result = run_scaling(*sampler, o);
    if (args->format == "json") {
      nlohmann::ordered_json rows = nlohmann::ordered_json::array();
      for (const auto& r : result.rows) rows.push_back(scaling_row_json(r));
      nlohmann::ordered_json out;
      out["rows"] = rows;
      std::cout << out.dump(2) << "\n";
    } else {
      std::cout << "Exercise 2.3.1: q and K ~ N(0, 1), " << o.keys << " keys, " << o.queries << " quer"
                << (o.queries == 1 ? "y" : "ies") << " × " << o.trials << " trials per d_k, seed " << o.seed
                << ", backend " << backend->name() << "\n";
      std::cout << "  d_k   unscaled std   scaled std   unscaled max prob (± spread)   scaled max prob (± spread)\n";
      for (const auto& r : result.rows) {
        char line[256];
        std::snprintf(line, sizeof line, "%5d   %12s   %10s   %17s (± %s)   %15s (± %s)\n", r.d_k,
                      fixed_decimals(r.unscaled_std, 2).c_str(), fixed_decimals(r.scaled_std, 3).c_str(),
                      fixed_decimals(r.unscaled_max_prob, 4).c_str(), fixed_decimals(r.unscaled_max_prob_spread, 4).c_str(),
                      fixed_decimals(r.scaled_max_prob, 4).c_str(), fixed_decimals(r.scaled_max_prob_spread, 4).c_str());
        std::cout << line;
      }
      std::cout << "std: the sample std over a row's keys (as torch.std), root-mean-square over rows; "
                   "max prob: mean over rows of the largest softmax weight\n";
    }
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
