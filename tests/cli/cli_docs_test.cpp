// The man page and the bash completion written from CLI11 definitions (app/cli/cli_docs.hpp), on a
// small app made here: every subcommand, option, choice and relation it defines is written, hidden
// options are not, and text that roff would take as a request or an escape is written literally.
// tests/install checks the real attnlab's pages against its --help.
#include "cli/cli_docs.hpp"

#include <gtest/gtest.h>

#include <string>

namespace attnlab::cli {
namespace {

struct ToyApp {
  CLI::App app{"A toy with a back\\slash"};
  std::string format = "text", file, out;
  int frames = 3;
  bool flag = false, hidden = false;
  ToyApp() {
    CLI::App* run = app.add_subcommand("run", "Run the toy");
    run->add_option("FILE", file, "The file to read")->required();
    run->add_option("--format", format, "json | text")->check(CLI::IsMember({"json", "text"}));
    CLI::Option* shot = run->add_option("--out", out, ".starts with a dot, like a roff request");
    run->add_option("--frames", frames, "Frames before the picture")->check(CLI::Range(1, 99))->needs(shot);
    run->add_flag("--quiet", flag, "Say nothing")->excludes("--out");
    app.add_subcommand("list", "List the toys");
    app.add_flag("--secret", hidden, "Not for users")->group("");
  }
};

TEST(CliDocs, ChoicesComeFromTheCheck) {
  ToyApp toy;
  const CLI::App* run = toy.app.get_subcommand("run");
  EXPECT_EQ(option_choices(*run->get_option("--format")), (std::vector<std::string>{"json", "text"}));
  EXPECT_TRUE(option_choices(*run->get_option("--frames")).empty());  // a range is not a list
  EXPECT_TRUE(option_choices(*run->get_option("--quiet")).empty());
}

TEST(CliDocs, ManPageHasEveryDefinitionAndNoHiddenOne) {
  ToyApp toy;
  const std::string man = man_page(toy.app, "1.2.3");
  EXPECT_EQ(man.rfind(".\\\"", 0), 0u) << "starts with a roff comment";
  EXPECT_NE(man.find(".TH ATTNLAB 1 \"\" \"attnlab 1.2.3\""), std::string::npos);
  for (const char* part : {".SS run", ".SS list", "\\fB\\-\\-format\\fR \\fIjson|text\\fR", "\\fB\\-\\-frames\\fR \\fIINT\\fR",
                           "\\fB\\-\\-quiet\\fR\n", "\\fIFILE\\fR", "Needs \\-\\-out.", "Excludes \\-\\-out.", "Required.", "[1 \\- 99]",
                           "A toy with a back\\eslash", "\\&.starts with a dot", ".SH EXIT STATUS"}) {
    EXPECT_NE(man.find(part), std::string::npos) << "missing " << part << " in\n" << man;
  }
  EXPECT_EQ(man.find("secret"), std::string::npos);
}

TEST(CliDocs, CompletionOffersSubcommandsOptionsAndChoices) {
  ToyApp toy;
  const std::string bash = bash_completion(toy.app);
  for (const char* part : {"run|list)", "\"run --format\") COMPREPLY=($(compgen -W \"json text\"",
                           "run) opts=\"-h --help --format --out --frames --quiet\"", "complete -F _attnlab attnlab"}) {
    EXPECT_NE(bash.find(part), std::string::npos) << "missing " << part << " in\n" << bash;
  }
  EXPECT_EQ(bash.find("--secret"), std::string::npos);
  EXPECT_EQ(bash.find("\"run --quiet\")"), std::string::npos) << "a flag takes no value to complete";
}

}  // namespace
}  // namespace attnlab::cli
