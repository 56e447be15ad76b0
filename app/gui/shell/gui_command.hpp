// `attnlab gui [SCENARIO | --preset NAME] [--presenter] [--theme light|dark] [--backend cpu|gpu|auto] [--screenshot FILE.png [--frames N]]
//  [--model MODEL [--text T | --ids I,J,…] [--layer L --head H [--lift]] [--link I,J]]`
// and the default window that plain `attnlab` opens.
#pragma once

#include "cli/commands.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace attnlab::gui {

struct GuiOptions {
  std::string scenario;    // a scenario file; empty: the session, else the default lesson
  std::string preset;      // a built-in lesson instead of a file (an addition to the command line's contract, docs/CLI.md)
  bool presenter = false;  // start in presenter mode
  std::string theme;       // "light" or "dark"; empty: the session's (an addition to the command line's contract, docs/CLI.md)
  std::string screenshot;  // write the window's pixels here after `frames` frames, then exit
  int frames = 3;
  std::string backend = "cpu";  // cpu, gpu (the window's GL context) or auto, as in the Backend menu
  // A model opened in the Model window at start (an addition to the contract), on this text
  // (empty: the window's default); with layer and head, that head chosen and enlarged; with lift,
  // also opened in the lab.
  std::string model, model_text;
  std::string model_ids;  // "15496,995": token ids instead of the text (a folder without a tokenizer)
  int model_layer = -1, model_head = -1;
  bool lift = false;
  std::string link;  // "I,J": the two tokens whose linking heads the Model window ranks (an addition to the contract)
  int model_generate = 0;  // tokens the model writes after the text before the first frame (Generate)
  // Heads knocked out ("1.0,1.1", as `model --ablate` names them) and how, and the logit lens shown.
  std::string ablate, ablation;
  bool logit_lens = false;
  std::string compare_text;  // a second text compared head by head
  std::string patch;         // heads patched from the second text ("1.0,1.1")

  // The opened lesson's exercise shown at this seed (the browser link's &exercise=SEED; no flag).
  std::optional<std::uint64_t> exercise_seed;
};

// Registers the `gui` subcommand.
cli::Runner add_gui_command(CLI::App& app);
// The desktop app on the restored session or the default lesson.
int run_default_gui();
// Opens the window and runs until it closes (or, with a screenshot, for `frames` frames).
// Throws InputError for a bad scenario file before any window opens.
int run_gui(const GuiOptions& options);

}  // namespace attnlab::gui
