// attnlab: the command line and, with no subcommand, the desktop app.
#include "cli/cli_docs.hpp"
#include "cli/commands.hpp"
#include "engine/cpu/blas.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#ifdef ATTNLAB_WITH_GUI
#include "gui/shell/gui_command.hpp"
#endif

namespace {

std::string usage_line(const CLI::App* cmd) {
  std::string name = "attnlab";
  if (cmd && cmd->get_parent()) name += " " + cmd->get_name();
  return "usage: " + name + " [OPTIONS]" + (cmd && cmd->get_parent() ? "" : " [SUBCOMMAND]") + " (see " + name + " --help)";
}

// `attnlab FILE [gui options]` (how a file manager opens a file: the .desktop entry's
// `Exec=attnlab %f`) is `attnlab gui FILE [gui options]`: a first word that is neither an option nor
// a subcommand but names a file (it exists, or has a folder or an extension) is taken as the file,
// so the window's own options may follow it. Any other first word is left to the parser, which
// refuses it as an unknown subcommand.
std::vector<const char*> with_file_shorthand(int argc, const char* const* argv, const CLI::App& app) {
  std::vector<const char*> args(argv, argv + argc);
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return args;
  for (const auto* sub : app.get_subcommands({})) {
    if (sub->check_name(argv[1])) return args;
  }
  if (app.get_subcommands([](const CLI::App* sub) { return sub->get_name() == "gui"; }).empty()) return args;
  const std::string word = argv[1];
  std::error_code ec;
  const bool names_a_file = std::filesystem::exists(word, ec) || word.find_first_of("./") != std::string::npos;
  if (names_a_file) args.insert(args.begin() + 1, "gui");
  return args;
}

int run(int argc, const char* const* argv) {
  using namespace attnlab;
  CLI::App app{"Attention Lab: scaled dot-product attention you can touch"};
  app.require_subcommand(0, 1);
  app.set_version_flag("--version", "attnlab " ATTNLAB_VERSION "\n" ATTNLAB_COPYRIGHT "\n" ATTNLAB_LICENSE
                       " License: you may use, copy, change and share it, keeping this notice; it comes with no warranty.");
  // The man page and the bash completion come from these very definitions (cli/cli_docs.hpp); the
  // build runs these hidden flags to write them (docs/INSTALL.md).
  bool help_man = false, help_completion = false;
  app.add_flag("--help-man", help_man, "Print the man page (roff)")->group("");
  app.add_flag("--help-bash-completion", help_completion, "Print the bash completion script")->group("");
  std::map<std::string, cli::Runner> runners;
  runners["compute"] = cli::add_compute_command(app);
  runners["presets"] = cli::add_presets_command(app);
  runners["export"] = cli::add_export_command(app);
  runners["lesson"] = cli::add_lesson_command(app);
  runners["scaling"] = cli::add_scaling_command(app);
  runners["bench"] = cli::add_bench_command(app);
  runners["models"] = cli::add_models_command(app);
  runners["model"] = cli::add_model_command(app);
  runners["train"] = cli::add_train_command(app);
#ifdef ATTNLAB_WITH_GUI
  runners["gui"] = gui::add_gui_command(app);
  app.footer("attnlab FILE [gui options] is attnlab gui FILE: it opens a scenario (.json) in the desktop app, "
             "or offers a matrix (.npy, .csv) as Q, K or V.");
#endif
  const std::vector<const char*> args = with_file_shorthand(argc, argv, app);
  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* failing = &app;
    for (const auto* sub : app.get_subcommands()) failing = sub;
    std::cerr << "attnlab: " << one_line(e.what()) << "\n" << usage_line(failing) << "\n";
    return cli::kExitBadInput;
  }
  if (help_man) {
    std::cout << cli::man_page(app, ATTNLAB_VERSION);
    return cli::kExitOk;
  }
  if (help_completion) {
    std::cout << cli::bash_completion(app);
    return cli::kExitOk;
  }
  std::string chosen;
  for (const auto* sub : app.get_subcommands()) chosen = sub->get_name();
  try {
    if (chosen.empty()) {
#ifdef ATTNLAB_WITH_GUI
      return gui::run_default_gui();
#else
      const char* const args[] = {"attnlab", "compute", "--format", "text"};
      return run(4, args);
#endif
    }
    return runners.at(chosen)();
  } catch (const BackendUnavailable& e) {
    std::cerr << "attnlab: " << one_line(e.what()) << "\n";
    return cli::kExitNoBackend;
  } catch (const InputError& e) {
    std::cerr << "attnlab: " << one_line(e.what()) << "\n";
    return cli::kExitBadInput;
  } catch (const std::bad_alloc&) {
    std::cerr << "attnlab: out of memory; try smaller matrices or the streaming path (--streaming)\n";
    return cli::kExitBadInput;
  } catch (const std::exception& e) {
    std::cerr << "attnlab: " << one_line(e.what()) << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  attnlab::blas::reexec_with_tuned_runtime(argv);
  return run(argc, argv);
}
