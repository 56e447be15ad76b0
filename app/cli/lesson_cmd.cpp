// `attnlab lesson NAME`: the numbers of a built-in lesson's special view (multi-head, precision,
// cost, ...), so that every lesson can be checked from a terminal. Additive to DESIGN.md's CLI.
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "engine/lesson_report.hpp"
#include "engine/presets.hpp"

#include <iostream>
#include <memory>

namespace attnlab::cli {

Runner add_lesson_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("lesson", "Print the numbers of a built-in lesson's special view");
  struct Args {
    std::string name;
    std::string format = "text";
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("NAME", args->name, "Built-in lesson (see `attnlab presets`) or a scenario file (.json)")->required();
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  return [args]() {
    const bool is_file = args->name.ends_with(".json");
    const Scenario s = is_file ? load_scenario(args->name) : load_preset(args->name);
    const nlohmann::ordered_json report = lesson_report(args->name, s);
    if (args->format == "json") std::cout << report.dump(2) << "\n";
    else write_lesson_text(std::cout, report);
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
