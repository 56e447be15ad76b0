// `attnlab lesson NAME`: the numbers of a built-in lesson's special view (multi-head, precision,
// cost, ...), so that every lesson can be checked from a terminal. Additive to the command-line contract.
#include "cli/commands.hpp"
#include "cli/inputs.hpp"
#include "engine/lessons/lesson_card.hpp"
#include "engine/lessons/lesson_export.hpp"
#include "engine/lessons/lesson_registry.hpp"
#include "engine/lessons/lesson_report.hpp"
#include "engine/lessons/lesson_text.hpp"
#include "engine/lessons/presets.hpp"
#include "engine/lessons/temperature.hpp"

#include <iostream>
#include <memory>

namespace attnlab::cli {

Runner add_lesson_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("lesson", "Print the numbers of a built-in lesson's special view");
  struct Args {
    std::string name;
    std::string format = "text";
    std::string frames_out;
    std::string card;
    std::string stage = "weights";
    int width = 0;
    bool force = false;
    bool annotate = false;
  };
  auto args = std::make_shared<Args>();
  cmd->add_option("NAME", args->name, "Built-in lesson (see `attnlab presets`) or a scenario file (.json)")->required();
  cmd->add_option("--format", args->format, "json | text")->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--frames-out", args->frames_out,
                  "Temperature lessons: write the sweep as FOLDER/temperature_0001.png, ...");
  cmd->add_option("--stage", args->stage, "With --frames-out: the stage drawn in each frame (default weights)");
  cmd->add_option("--width", args->width, "With --frames-out: PNG width in pixels");
  cmd->add_option("--card", args->card, "Write the lesson's printable reference card (title, source, keys) as FILE.pdf");
  cmd->add_flag("--force", args->force, "With --frames-out or --card: overwrite existing files");
  cmd->add_flag("--annotate", args->annotate, "With --frames-out: print each cell's value");
  return [args]() {
    const bool is_file = args->name.ends_with(".json");
    if (!args->card.empty()) {
      if (is_file) throw InputError("--card: reference cards are made for built-in lessons; name one (see `attnlab presets`)");
      ExportOptions o;
      o.force = args->force;
      o.target_name = "--card";
      write_lesson_card(args->name, args->card, o);
      std::cout << "wrote " << args->card << "\n";
      return kExitOk;
    }
    const Scenario s = is_file ? load_scenario(args->name) : load_preset(args->name);
    if (is_file) check_lesson_fields(s.lesson);  // load_preset checks its own
    // A lesson text whose references name numbers the scenario does not have is refused with the
    // reference named, rather than printed with gaps.
    check_lesson_references(s, args->name);
    if (!args->frames_out.empty()) {
      if (lesson_view(s.lesson) != kTemperatureView) {
        throw InputError("--frames-out: " + args->name + " is not a temperature lesson; only those have a sweep to animate");
      }
      ExportOptions o;
      o.stage = parse_stage(args->stage, "--stage");
      o.width_px = args->width;
      o.force = args->force;
      o.target_name = "--frames-out";
      o.overwrite_hint = "pass --force to overwrite the frames";
      o.figure.annotate = args->annotate;
      const auto written = export_temperature_sequence(s, args->frames_out, o);
      std::cout << "wrote " << written.size() << " frames: " << written.front().string() << " … "
                << written.back().filename().string() << "\n";
      return kExitOk;
    }
    const nlohmann::ordered_json report = lesson_report(args->name, s);
    if (args->format == "json") std::cout << report.dump(2) << "\n";
    else write_lesson_text(std::cout, report);
    std::cout.flush();
    if (!std::cout) throw InputError("standard output: writing failed");
    return kExitOk;
  };
}

}  // namespace attnlab::cli
