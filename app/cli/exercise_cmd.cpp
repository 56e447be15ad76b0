// `attnlab exercise LESSON`: a lesson's exercise drawn from a seed, and `--answer` grades an answer
// to it (docs/CLI.md, "Exercises"). A wrong answer is a result (exit 0); a malformed one is bad input.
#include "cli/commands.hpp"
#include "engine/io/atomic_file.hpp"
#include "engine/lessons/exercise.hpp"
#include "engine/lessons/exercise_grade.hpp"

#include <iostream>
#include <iterator>
#include <memory>
#include <random>

namespace attnlab::cli {

namespace {

// A seed short enough to type, for an exercise asked for without one (it is printed with it).
std::uint64_t fresh_seed() {
  std::random_device device;
  return 1 + device() % 99999;
}

std::string read_answer(const std::string& path) {
  if (path != "-") return read_file(path);
  std::string text{std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  if (std::cin.bad()) throw InputError("standard input: reading the answer failed");
  return text;
}

}  // namespace

Runner add_exercise_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("exercise", "Print a lesson's exercise, or grade an answer to it");
  struct Args {
    std::string lesson;
    std::uint64_t seed = 0;
    std::string format = "text";
    std::string answer;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("LESSON", args->lesson, "Built-in lesson (see `attnlab presets`)")->required();
  CLI::Option* seed = cmd->add_option("--seed", args->seed, "The exercise's seed (default: a new one, printed with it)");
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--answer", args->answer, "Grade the answer in FILE.json ({\"parts\": {\"a\": …}}; - reads standard input)")
      ->needs(seed);
  return [args, seed]() {
    const std::uint64_t s = seed->count() ? args->seed : fresh_seed();
    const Exercise e = make_exercise(args->lesson, s);
    if (args->answer.empty()) {
      if (args->format == "json") std::cout << exercise_to_json(e).dump(2) << "\n";
      else write_exercise_text(std::cout, e);
    } else {
      const std::string source = args->answer == "-" ? "standard input" : args->answer;
      const Grade g = grade_exercise(e, parse_answers(read_answer(args->answer), e, source));
      if (args->format == "json") std::cout << grade_to_json(g).dump(2) << "\n";
      else write_grade_text(std::cout, g);
    }
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
