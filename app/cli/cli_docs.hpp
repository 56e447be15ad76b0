// The man page and the bash completion, written from the CLI11 definitions of the subcommands and
// options themselves (the same objects `attnlab --help` prints), so they cannot drift from the
// command line. `attnlab --help-man` and `attnlab --help-bash-completion` print them; the build
// writes them into the install tree (docs/INSTALL.md).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace attnlab::cli {

// attnlab(1) in roff (man(7) macros): every subcommand with every option, its value, default,
// choices and what it needs or excludes, then exit status, files and environment.
std::string man_page(const CLI::App& app, const std::string& version);

// A bash completion script (`complete -F _attnlab attnlab`): subcommands, each subcommand's
// options, the choices of options that have them (`--format json|text`), built-in lesson names
// for --preset (asked of `attnlab presets` when completing) and file names elsewhere.
std::string bash_completion(const CLI::App& app);

// The choices an option accepts when a CLI::IsMember check names them (its type name reads
// "TEXT:{json,text}"); empty for free values.
std::vector<std::string> option_choices(const CLI::Option& option);

}  // namespace attnlab::cli
