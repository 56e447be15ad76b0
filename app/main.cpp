// attnlab: the command line and, with no subcommand, the desktop app.
#include "cli/commands.hpp"
#include "engine/cpu/blas.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/io/text_format.hpp"

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#ifdef ATTNLAB_WITH_GUI
#include "gui/shell/gui_command.hpp"
#endif

namespace {

std::string usage_line(const CLI::App* cmd) {
  std::string name = "attnlab";
  if (cmd && cmd->get_parent()) name += " " + cmd->get_name();
  return "usage: " + name + " [OPTIONS]" + (cmd && cmd->get_parent() ? "" : " [SUBCOMMAND]") + " (see " + name + " --help)";
}

int run(int argc, const char* const* argv) {
  using namespace attnlab;
  CLI::App app{"Attention Lab: scaled dot-product attention you can touch"};
  app.require_subcommand(0, 1);
  std::map<std::string, cli::Runner> runners;
  runners["compute"] = cli::add_compute_command(app);
  runners["presets"] = cli::add_presets_command(app);
  runners["export"] = cli::add_export_command(app);
  runners["lesson"] = cli::add_lesson_command(app);
  runners["scaling"] = cli::add_scaling_command(app);
  runners["bench"] = cli::add_bench_command(app);
  runners["models"] = cli::add_models_command(app);
  runners["model"] = cli::add_model_command(app);
#ifdef ATTNLAB_WITH_GUI
  runners["gui"] = gui::add_gui_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const CLI::App* failing = &app;
    for (const auto* sub : app.get_subcommands()) failing = sub;
    std::cerr << "attnlab: " << one_line(e.what()) << "\n" << usage_line(failing) << "\n";
    return cli::kExitBadInput;
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
