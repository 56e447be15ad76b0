// The attnlab subcommands: each registers itself on the CLI11 app and returns an exit code.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace attnlab::cli {

// Exit codes of the command line contract.
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 2;
inline constexpr int kExitNoBackend = 3;

// A registered subcommand: its parsed options live in the closure; run() does the work.
using Runner = std::function<int()>;

Runner add_compute_command(CLI::App& app);
Runner add_presets_command(CLI::App& app);
Runner add_export_command(CLI::App& app);
Runner add_lesson_command(CLI::App& app);
Runner add_scaling_command(CLI::App& app);
Runner add_bench_command(CLI::App& app);
Runner add_models_command(CLI::App& app);
Runner add_model_command(CLI::App& app);
Runner add_train_command(CLI::App& app);
Runner add_exercise_command(CLI::App& app);
Runner add_worksheet_command(CLI::App& app);

}  // namespace attnlab::cli
