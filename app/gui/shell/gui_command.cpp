// The `gui` subcommand's options.
#include "gui/shell/gui_command.hpp"

#include "engine/attention/matrix.hpp"

namespace attnlab::gui {

cli::Runner add_gui_command(CLI::App& app) {
  auto opts = std::make_shared<GuiOptions>();
  CLI::App* cmd = app.add_subcommand("gui", "Open the desktop app (optionally on a scenario file)");
  CLI::Option* file = cmd->add_option("SCENARIO", opts->scenario, "Scenario file (.json) to open");
  cmd->add_option("--preset", opts->preset, "Open a built-in lesson instead (see `attnlab presets`)")->excludes(file);
  cmd->add_flag("--presenter", opts->presenter, "Start in presenter mode (large fonts, high contrast)");
  cmd->add_option("--theme", opts->theme, "Start in the light or dark theme (T switches it in the app)")
      ->check(CLI::IsMember({"light", "dark"}));
  cmd->add_option("--backend", opts->backend,
                  "Compute backend to start on: cpu (default), gpu (this window's OpenGL context) or auto")
      ->check(CLI::IsMember({"cpu", "gpu", "auto"}));
  CLI::Option* shot = cmd->add_option("--screenshot", opts->screenshot,
                                      "Render some frames (the pointer left out), write the window's pixels to this PNG and exit");
  cmd->add_option("--frames", opts->frames, "Frames to render before the screenshot (default 3)")
      ->check(CLI::Range(1, 100000))
      ->needs(shot);
  CLI::Option* model = cmd->add_option("--model", opts->model, "Open a model (folder or .safetensors) in the Model window");
  CLI::Option* text = cmd->add_option("--text", opts->model_text, "With --model: the text to run")->needs(model);
  cmd->add_option("--ids", opts->model_ids, "With --model: token ids instead of text (15496,995), as a model without a tokenizer reads them")
      ->needs(model)
      ->excludes(text);
  cmd->add_option("--layer", opts->model_layer, "With --model: choose and enlarge this layer's head --head")->needs(model);
  cmd->add_option("--head", opts->model_head, "With --model and --layer: the head")->needs(model);
  cmd->add_flag("--lift", opts->lift, "With --layer and --head: also open that head in the lab")->needs(model);
  cmd->add_option("--link", opts->link, "With --model: I,J, rank the heads by their weight from token I to token J (as a click on two chips)")
      ->needs(model);
  cmd->add_option("--generate", opts->model_generate, "With --model: write N tokens after the text (the Model window's Generate)")->needs(model);
  CLI::Option* ablate =
      cmd->add_option("--ablate", opts->ablate, "With --model: L.H[,L.H…], knock these heads out (the Model window's Knock out)")->needs(model);
  cmd->add_option("--ablation", opts->ablation, "With --ablate: zero (default), mean or uniform")->needs(ablate);
  cmd->add_flag("--logit-lens", opts->logit_lens, "With --model: show the logit lens")->needs(model);
  CLI::Option* compare =
      cmd->add_option("--compare-text", opts->compare_text, "With --model: a second text of the same token count, compared head by head")
          ->needs(model);
  cmd->add_option("--patch", opts->patch, "With --compare-text: L.H[,L.H…], these heads' outputs taken from the second text")->needs(compare);
  return [opts]() { return run_gui(*opts); };
}

int run_default_gui() { return run_gui(GuiOptions{}); }

}  // namespace attnlab::gui
