// attnlab: the command line and, with no subcommand, the desktop app.
#include "cli/cli_docs.hpp"
#include "cli/commands.hpp"
#include "engine/cpu/blas.hpp"
#include "engine/attention/matrix.hpp"
#include "engine/text/text_format.hpp"

#include <cstdio>
#include <cstdlib>
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

// A parse error in the house's words, where CLI11's own would read as its internals ("Could not
// convert: --n = abc", "--frames: Value x not in range 1 to 100000", "1 required TEXT missing");
// any other CLI11 message as it is. `cmd` is the subcommand that failed, whose options say their types.
std::string parse_error_sentence(const CLI::ParseError& e, const CLI::App& cmd) {
  const std::string what = attnlab::one_line(e.what());
  const auto type_of = [&](const std::string& name) {  // "INT", "UINT", "FLOAT", "TEXT", before any ":validator"
    const CLI::Option* opt = cmd.get_option_no_throw(name);
    const std::string type = opt ? opt->get_type_name() : "";
    return type.substr(0, type.find(':'));
  };
  const auto is_number = [](const std::string& v) {
    char* end = nullptr;
    std::strtod(v.c_str(), &end);
    return !v.empty() && end == v.c_str() + v.size();
  };
  const auto digits_only = [&](const std::string& v) {
    return is_number(v) && v.find_first_not_of("+-0123456789") == std::string::npos;
  };
  const auto not_a = [&](const std::string& name, const std::string& value) {
    const std::string type = type_of(name);
    if (type == "FLOAT") return name + ": '" + value + "' is not a number";
    if (type != "INT" && type != "UINT") return name + ": '" + value + "' is not a value this option takes";
    if (digits_only(value)) {
      return name + ": " + value + " is out of range";  // digits beyond the type
    }
    return name + ": '" + value + "' is not a whole number (write it in digits, e.g. 512)";
  };
  static const std::string kConvert = "Could not convert: ";
  if (what.rfind(kConvert, 0) == 0) {
    const size_t eq = what.find(" = ", kConvert.size());
    if (eq != std::string::npos) return not_a(what.substr(kConvert.size(), eq - kConvert.size()), what.substr(eq + 3));
  }
  const size_t colon = what.find(": ");
  if (colon == std::string::npos) return what;
  const std::string name = what.substr(0, colon), rest = what.substr(colon + 2);
  static const std::string kValue = "Value ", kRange = " not in range ", kTo = " to ";
  if (const size_t at = rest.find(kRange); rest.rfind(kValue, 0) == 0 && at != std::string::npos) {
    const std::string value = rest.substr(kValue.size(), at - kValue.size()), bounds = rest.substr(at + kRange.size());
    const size_t to = bounds.find(kTo);
    const bool in_type = type_of(name) == "FLOAT" ? is_number(value) : digits_only(value);
    if (!in_type || to == std::string::npos) return not_a(name, value);
    return name + ": " + value + " is out of range; it must be between " + bounds.substr(0, to) + " and " +
           bounds.substr(to + kTo.size());
  }
  static const std::string kNotIn = " not in {";
  if (const size_t at = rest.find(kNotIn); at != std::string::npos && rest.back() == '}') {
    std::string set = rest.substr(at + kNotIn.size(), rest.size() - at - kNotIn.size() - 1);
    for (size_t c = set.find(','); c != std::string::npos; c = set.find(',', c + 2)) set.replace(c, 1, ", ");
    return name + ": '" + rest.substr(0, at) + "' is not one of " + set;
  }
  if (rest.ends_with(" missing") && rest.find(" required ") != std::string::npos) {
    return name + " needs a value";
  }
  return what;
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
  runners["exercise"] = cli::add_exercise_command(app);
  runners["worksheet"] = cli::add_worksheet_command(app);
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
    std::cerr << "attnlab: " << parse_error_sentence(e, *failing) << "\n" << usage_line(failing) << "\n";
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
    const std::string sentence = one_line(e.what());
    std::cerr << "attnlab: " << sentence << "\n";
    // A sentence that starts with an option's name is about how the command was called: the
    // subcommand's usage line follows it, as it follows the parser's own (docs/CLI.md).
    if (sentence.starts_with("--")) std::cerr << usage_line(chosen.empty() ? &app : app.get_subcommand(chosen)) << "\n";
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
