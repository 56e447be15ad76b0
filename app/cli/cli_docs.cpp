// attnlab(1) and the bash completion, walked from the CLI11 app: every subcommand and option the
// parser knows is written, and nothing else is (docs/INSTALL.md says where they are installed).
#include "cli/cli_docs.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace attnlab::cli {

namespace {

// The subcommands a user can type, in the order they were registered.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* sub) { return !sub->get_disabled() && !sub->get_name().empty(); });
}

// Options shown by --help: hidden ones (the empty group) are for the build, not for users.
std::vector<const CLI::Option*> visible_options(const CLI::App& app) {
  return app.get_options([](const CLI::Option* opt) { return !opt->get_group().empty(); });
}

// One line of text made safe for roff: a backslash is written \e, a hyphen \- (a minus, so that
// `--format` can be searched and pasted), and a line starting with . or ' is protected by \&.
std::string roff(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out = "\\&" + out;
  return out;
}

// How the value of an option is written in the synopsis: its choices, else its type (TEXT, INT).
std::string value_label(const CLI::Option& opt) {
  const std::vector<std::string> choices = option_choices(opt);
  if (!choices.empty()) {
    std::string joined;
    for (const auto& c : choices) joined += (joined.empty() ? "" : "|") + c;
    return joined;
  }
  const std::string type = opt.get_type_name();
  return type.substr(0, type.find(':'));
}

// Flags expect no value (CLI11 registers them with expected(0)).
bool takes_value(const CLI::Option& opt) { return opt.get_expected_max() != 0; }

// "--name VALUE" (or "-n, --name VALUE", or "NAME" for a positional), in roff.
std::string option_heading(const CLI::Option& opt) {
  if (opt.get_positional()) return "\\fI" + roff(opt.get_name(true, false)) + "\\fR";
  std::string names;
  for (const auto& s : opt.get_snames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-" + roff(s) + "\\fR");
  for (const auto& l : opt.get_lnames()) names += (names.empty() ? "" : ", ") + ("\\fB\\-\\-" + roff(l) + "\\fR");
  if (takes_value(opt)) names += " \\fI" + roff(value_label(opt)) + "\\fR";
  return names;
}

// The synopsis of one subcommand: its options in brackets, then its positionals.
std::string synopsis(const CLI::App& sub, const std::string& prefix) {
  std::string line = "\\fB" + roff(prefix) + "\\fR";
  for (const CLI::Option* opt : visible_options(sub)) {
    if (opt->get_positional() || opt->get_lnames().empty() || opt->get_lnames()[0] == "help") continue;
    std::string item = "\\fB\\-\\-" + roff(opt->get_lnames()[0]) + "\\fR";
    if (takes_value(*opt)) item += " \\fI" + roff(value_label(*opt)) + "\\fR";
    line += opt->get_required() ? " " + item : " [" + item + "]";
  }
  for (const CLI::Option* opt : visible_options(sub)) {
    if (!opt->get_positional()) continue;
    const std::string item = "\\fI" + roff(opt->get_name(true, false)) + "\\fR";
    line += opt->get_required() ? " " + item : " [" + item + "]";
  }
  return line;
}

// What the parser adds to an option's own description: its default, limits and relations.
std::string option_details(const CLI::Option& opt) {
  std::string out;
  const std::string type = opt.get_type_name();
  const auto colon = type.find(':');
  if (colon != std::string::npos && option_choices(opt).empty()) out += " Accepts " + type.substr(colon + 1) + ".";
  if (!opt.get_default_str().empty()) out += " Default: " + opt.get_default_str() + ".";
  if (opt.get_required()) out += " Required.";
  auto name = [](const CLI::Option* o) { return o->get_positional() ? o->get_name(true, false) : o->get_name(); };
  for (const CLI::Option* need : opt.get_needs()) out += " Needs " + name(need) + ".";
  for (const CLI::Option* ex : opt.get_excludes()) out += " Excludes " + name(ex) + ".";
  return out;
}

void write_options(std::ostringstream& out, const CLI::App& app) {
  for (const CLI::Option* opt : visible_options(app)) {
    std::string text = opt->get_description();
    if (!text.empty() && text.back() != '.' && !option_details(*opt).empty()) text += '.';
    out << ".TP\n" << option_heading(*opt) << "\n" << roff(text + option_details(*opt)) << "\n";
  }
}

// The words to complete after an option: its checked choices, else the choices its description
// lists as "a | b | c" (options whose values are parsed later, such as --mask or --stage), keeping
// the words that are whole values (`padding:L` needs a number, so it is left out).
std::vector<std::string> completion_words(const CLI::Option& opt) {
  std::vector<std::string> words = option_choices(opt);
  if (!words.empty()) return words;
  const std::string desc = opt.get_description();
  if (desc.find(" | ") == std::string::npos) return words;
  std::istringstream list(desc);
  bool whole_list = true;
  std::string item, sep;
  while (list >> item) {
    const bool plain = std::all_of(item.begin(), item.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; });
    const bool parameterized = item.find(':') != std::string::npos;
    if (!plain && !parameterized) whole_list = false;
    if (plain) words.push_back(item);
    if (list >> sep && sep != "|") whole_list = false;
  }
  return whole_list ? words : std::vector<std::string>{};
}

// What the definitions cannot say: the files, the exit codes and the environment.
constexpr const char* kManTail = R"(.SH EXIT STATUS
.TP
.B 0
Success.
.TP
.B 2
Bad input or usage: one line on standard error names the file, field or flag and what was wrong.
No partial output file is left behind.
.TP
.B 3
A requested backend is not available (\fB\-\-backend gpu\fR with no OpenGL 4.3 context).
.SH FILES
.TP
.I $XDG_CONFIG_HOME/attnlab/session.json
The desktop app's session (document, view, recent files), saved on exit and restored at start
(\fI~/.config/attnlab\fR when XDG_CONFIG_HOME is not set).
.TP
.I $XDG_CONFIG_HOME/attnlab/recovery.json
Unsaved work, written a moment after every change and offered back after a crash.
.TP
.I $XDG_CONFIG_HOME/attnlab/instance.lock
Held by the window that owns the session; a second window opened meanwhile works on its own
document and leaves the session and recovery files to the first.
.SH ENVIRONMENT
.TP
.B XDG_CONFIG_HOME
Where the session lives (see FILES).
.TP
.B DISPLAY, WAYLAND_DISPLAY
The display the desktop app opens its window on; the subcommands other than \fBgui\fR need none.
.SH SEE ALSO
The built-in lessons: \fBattnlab presets\fR. Scenario files are JSON with
\fB"format": "attnlab\-scenario"\fR; matrices come from .npy and .csv files.
)";

}  // namespace

std::vector<std::string> option_choices(const CLI::Option& option) {
  const std::string type = option.get_type_name();
  const auto open = type.find(":{");
  const auto close = type.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return {};
  std::vector<std::string> choices;
  std::istringstream list(type.substr(open + 2, close - open - 2));
  for (std::string item; std::getline(list, item, ',');) {
    if (!item.empty()) choices.push_back(item);
  }
  return choices;
}

std::string man_page(const CLI::App& app, const std::string& version) {
  std::ostringstream out;
  out << ".\\\" attnlab(1), generated by `attnlab --help-man` from the command line's own definitions.\n"
      << ".TH ATTNLAB 1 \"\" \"attnlab " << roff(version) << "\" \"User Commands\"\n"
      << ".SH NAME\nattnlab \\- " << roff(app.get_description()) << "\n"
      << ".SH SYNOPSIS\n" << synopsis(app, "attnlab") << "\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    out << ".br\n" << synopsis(*sub, "attnlab " + sub->get_name()) << "\n";
    if (sub->get_name() == "gui") out << ".br\n\\fBattnlab\\fR \\fIFILE\\fR [\\fIgui options\\fR]\n";
  }
  out << ".SH DESCRIPTION\n"
         "Attention Lab makes scaled dot\\-product attention, softmax(Q Kᵀ / √d_k) V, something a student\n"
         "can touch: every stage (scores, logits, weights, output, saturation) is computed, shown and exported.\n"
         ".PP\n"
         "With no subcommand, \\fBattnlab\\fR opens the desktop app on the last session or the default lesson;\n"
         "\\fBattnlab\\fR \\fIFILE\\fR opens it on a scenario (.json) or offers a matrix (.npy, .csv) as Q, K or V,\n"
         "as the file manager does. Each launch opens its own window.\n"
         ".SH OPTIONS\n";
  write_options(out, app);
  out << ".SH COMMANDS\n";
  for (const CLI::App* sub : visible_subcommands(app)) {
    out << ".SS " << sub->get_name() << "\n" << roff(sub->get_description()) << ".\n";
    write_options(out, *sub);
  }
  out << kManTail;
  return out.str();
}

std::string bash_completion(const CLI::App& app) {
  std::ostringstream out;
  const auto subs = visible_subcommands(app);
  std::string names, words;  // "a|b" for a case pattern, "a b" for compgen
  for (const CLI::App* sub : subs) {
    names += (names.empty() ? "" : "|") + sub->get_name();
    words += (words.empty() ? "" : " ") + sub->get_name();
  }
  out << "# bash completion for attnlab, generated by `attnlab --help-bash-completion` from the command\n"
         "# line's own definitions.\n"
         "_attnlab() {\n"
         "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= i opts\n"
         "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
         "    case ${COMP_WORDS[i]} in " << names << ") sub=${COMP_WORDS[i]}; break ;; esac\n"
         "  done\n"
         "  case \"$sub $prev\" in\n";
  // Values: the choices where the parser checks them, lesson names for --preset, else file names.
  auto value_cases = [&](const CLI::App& a, const std::string& sub) {
    for (const CLI::Option* opt : visible_options(a)) {
      if (opt->get_positional() || !takes_value(*opt)) continue;
      std::string choices;
      for (const auto& c : completion_words(*opt)) choices += (choices.empty() ? "" : " ") + c;
      for (const auto& l : opt->get_lnames()) {
        out << "    \"" << sub << " --" << l << "\")";
        if (!choices.empty()) out << " COMPREPLY=($(compgen -W \"" << choices << "\" -- \"$cur\")); return ;;\n";
        else if (l == "preset") out << " COMPREPLY=($(compgen -W \"$(attnlab presets 2>/dev/null | cut -d' ' -f1)\" -- \"$cur\")); return ;;\n";
        else out << " compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
      }
    }
  };
  value_cases(app, "");
  for (const CLI::App* sub : subs) value_cases(*sub, sub->get_name());
  out << "  esac\n  case $sub in\n";
  auto option_words = [](const CLI::App& a) {
    std::string list;
    for (const CLI::Option* opt : visible_options(a)) {
      if (opt->get_positional()) continue;
      for (const auto& s : opt->get_snames()) list += (list.empty() ? "-" : " -") + s;
      for (const auto& l : opt->get_lnames()) list += (list.empty() ? "--" : " --") + l;
    }
    return list;
  };
  out << "    \"\") opts=\"" << option_words(app) << "\" ;;\n";
  for (const CLI::App* sub : subs) out << "    " << sub->get_name() << ") opts=\"" << option_words(*sub) << "\" ;;\n";
  out << "  esac\n"
         "  if [[ $cur == -* ]]; then\n"
         "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
         "  else\n"
         "    compopt -o filenames 2>/dev/null\n"
         "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    [[ -z $sub ]] && COMPREPLY+=($(compgen -W \"" << words << "\" -- \"$cur\"))\n"
         "  fi\n"
         "}\n"
         "complete -F _attnlab attnlab\n";
  return out.str();
}

}  // namespace attnlab::cli
