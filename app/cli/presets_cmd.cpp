// `attnlab presets`: the built-in lessons, one a line: NAME, spaces, title.
#include "cli/commands.hpp"
#include "engine/lessons/presets.hpp"

#include <algorithm>
#include <iostream>

namespace attnlab::cli {

Runner add_presets_command(CLI::App& app) {
  app.add_subcommand("presets", "List the built-in lessons");
  return []() {
    const auto presets = list_presets();
    size_t width = 0;
    for (const auto& p : presets) width = std::max(width, p.name.size());
    for (const auto& p : presets) std::cout << p.name << std::string(width - p.name.size() + 2, ' ') << p.title << "\n";
    return kExitOk;
  };
}

}  // namespace attnlab::cli
