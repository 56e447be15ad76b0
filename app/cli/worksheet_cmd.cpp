// `attnlab worksheet LESSON[,LESSON…] --students N`: a page of exercises per student, each with its
// own seed, and the answer key (docs/CLI.md, "Exercises").
#include "cli/commands.hpp"
#include "engine/lessons/worksheet.hpp"

#include <iostream>
#include <memory>
#include <random>
#include <sstream>

namespace attnlab::cli {

Runner add_worksheet_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("worksheet", "Write a worksheet of exercises, a page per student, and its answer key");
  struct Args {
    std::string lessons;
    long long students = 0;
    std::uint64_t seed = 0;
    std::string out, key;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("LESSON", args->lessons, "Built-in lessons, separated by commas (see `attnlab presets`)")->required();
  cmd->add_option("--students", args->students, "How many students: a page (and a seed) each")->required();
  CLI::Option* seed = cmd->add_option("--seed", args->seed, "The first student's seed; the next get the seeds after it (default: a new one)");
  cmd->add_option("--out", args->out, "The worksheet, FILE.pdf or FILE.tex (replaced if it exists)")->required();
  cmd->add_option("--key", args->key, "The answer key, FILE.pdf or FILE.tex");
  return [args, seed]() {
    WorksheetRequest r;
    std::istringstream list(args->lessons);
    for (std::string name; std::getline(list, name, ',');) {
      if (!name.empty()) r.lessons.push_back(name);
    }
    r.students = args->students;
    r.first_seed = seed->count() ? args->seed : 1000 + std::random_device{}() % 9000;
    std::optional<std::filesystem::path> key;
    if (!args->key.empty()) key = args->key;
    write_worksheet(r, args->out, key);
    std::cout << "wrote " << args->out << " (" << r.students << (r.students == 1 ? " student" : " students") << ", seeds "
              << r.first_seed << " to " << r.first_seed + static_cast<std::uint64_t>(r.students) - 1 << ")";
    if (key) std::cout << " and the key " << key->string();
    std::cout << "\n";
    return kExitOk;
  };
}

}  // namespace attnlab::cli
