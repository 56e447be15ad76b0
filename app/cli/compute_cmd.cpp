// `attnlab compute`: every stage of one scenario, as JSON or as text for a terminal; the streaming
// path (--streaming, or automatically when the dense n × m stages would not fit in memory).
#include "cli/backend_select.hpp"
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "cli/progress.hpp"
#include "engine/io/result_format.hpp"
#include "engine/cpu/dense.hpp"
#include "engine/cpu/streaming.hpp"
#include "engine/text/text_format.hpp"

#include <iostream>
#include <memory>

namespace attnlab::cli {

Runner add_compute_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compute", "Compute every stage of attention and print it");
  struct Args {
    InputArgs input;
    std::string format = "text";
    bool summary = false;
    bool streaming = false;
  };
  auto args = std::make_shared<Args>();
  add_input_options(*cmd, args->input);
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--summary", args->summary, "Print output, rows and stats only (no n × m matrices)");
  cmd->add_flag("--streaming", args->streaming,
                "Use the tiled path that never holds the n × m matrices (prints output, rows and stats)");
  return [args]() {
    Scenario s = resolve_scenario(args->input);
    // The report below reads the scenario's title, tokens and options, not its matrices.
    const Problem problem = s.take_problem();
    const Eigen::Index n = problem.Q.rows(), m = problem.K.rows();
    const bool fits = dense_fits(n, m);
    // A full JSON object must print the n × m matrices: refuse (the message points at --summary
    // and export) rather than print something else.
    if (!fits && !args->summary && !args->streaming && args->format == "json") check_dense_fits(n, m);
    auto backend = select_backend(args->input.backend, std::cerr);
    const bool streaming = args->streaming || !fits;
    if (!fits && !args->streaming) {
      std::cerr << "attnlab: the dense n×m stages would need " << human_bytes(dense_bytes(n, m)) << " (limit "
                << human_bytes(dense_memory_limit()) << "); streaming instead: output, rows and stats only\n";
    }
    Result r;
    if (streaming) {
      StderrProgress progress("streaming " + std::to_string(n) + "×" + std::to_string(m) + " attention");
      StreamingOptions so;
      so.heatmap_rows = so.heatmap_cols = 0;  // compute prints no heatmap
      so.progress = progress.callback();
      r = backend->compute_streaming(problem, so);
      progress.done();
    } else {
      // Only what is printed: nothing n × m for --summary; scores and weights for the full report,
      // logits and saturation derived from them cell by cell (the same numbers, half the memory).
      DenseStages keep;
      keep.logits = keep.saturation = false;
      if (args->summary) keep.scores = keep.weights = false;
      r = backend->compute(problem, keep);
    }
    FormatOptions f;
    f.summary = args->summary || streaming;
    f.backend = std::string(backend->name());
    if (args->format == "json") write_result_json(std::cout, s, r, f);
    else write_result_text(std::cout, s, r, f);
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
