// `attnlab compute`: every stage of one scenario, as JSON or as text for a terminal.
#include "cli/backend_select.hpp"
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "engine/result_format.hpp"

#include <iostream>
#include <memory>

namespace attnlab::cli {

Runner add_compute_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("compute", "Compute every stage of attention and print it");
  struct Args {
    InputArgs input;
    std::string format = "text";
    bool summary = false;
  };
  auto args = std::make_shared<Args>();
  add_input_options(*cmd, args->input);
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_flag("--summary", args->summary, "Print output, rows and stats only (no n × m matrices)");
  return [args]() {
    const Scenario s = resolve_scenario(args->input);
    auto backend = select_backend(args->input.backend, std::cerr);
    const Result r = backend->compute(s.problem());
    FormatOptions f;
    f.summary = args->summary;
    f.backend = std::string(backend->name());
    if (args->format == "json") write_result_json(std::cout, s, r, f);
    else write_result_text(std::cout, s, r, f);
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
