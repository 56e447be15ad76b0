// The INPUT and OPTIONS shared by compute, export and the GUI's command line (docs/ARCHITECTURE.md, "Contracts"):
// a scenario file, --preset NAME, --q/--k/--v matrix files, or one head of a model (--model), then
// option overrides.
#pragma once

#include "engine/io/scenario.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace attnlab::cli {

struct InputArgs {
  std::string scenario_path;
  std::string preset;
  std::string q_path, k_path, v_path;
  // --model MODEL (--text T | --ids …) --layer L --head H: one head of a real model.
  std::string model, model_text, model_ids;
  bool have_model_text = false;
  int layer = -1, head = -1;
  // Overrides; unset ones keep the scenario's value.
  bool scale = false, no_scale = false;
  std::string temperature;
  std::string mask;
  std::string normalizer;
  std::string rope_theta;   // --rope THETA: rotary positions on, with this θ
  std::string rope_offset;  // --rope-offset P: P added to every position
  bool no_rope = false;     // --no-rope
  std::string backend = "auto";
};

// Registers INPUT (positional), --preset, --q/--k/--v and the OPTIONS on `cmd`.
void add_input_options(CLI::App& cmd, InputArgs& args, bool with_backend = true);

// Builds the scenario the arguments describe. Throws InputError with a sentence naming the
// file or flag.
Scenario resolve_scenario(const InputArgs& args);

}  // namespace attnlab::cli
