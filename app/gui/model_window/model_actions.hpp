// What the Model window does to AppState::model (docs/MODELS.md): open a model, retokenize the
// text as it is typed and start a background run, poll it, choose a head, lift it into the lab.
// No ImGui: the panel tests call these as the window's widgets do.
#pragma once

#include "gui/shell/app_state.hpp"

#include <string>

namespace attnlab::gui {

// Opens a model folder or .safetensors file; on failure sets state.model.error and keeps the
// model that was open. Opens the Model window.
void open_model_file(AppState& state, const std::string& path);
// True for what a drop should open as a model: a folder, or a .safetensors file.
bool is_model_path(const std::string& path);
// A new text: tokenized at once (a refused text keeps the last good tokens and says why), and a
// background run started when the tokens changed (on a thread when `threaded`: PlatformTraits).
void set_model_text(ModelUi& m, const std::string& text, bool threaded);
// Starts a run of the current tokens (cancelling any in progress).
void start_model_run(ModelUi& m, bool threaded);
// Takes a finished run (and Generate's runs as its tokens arrive); call once a frame. Returns true
// while a run is in progress.
bool poll_model_run(ModelUi& m);
// Cancel: a text's run is dropped (the maps show the text before it); Generate stops, keeping the
// tokens written.
void cancel_model_run(ModelUi& m);
// Chooses a head, clamped to the model; `step` moves through heads in reading order (PageDown on
// a clicker: the next head, then the next layer).
void choose_head(ModelUi& m, int layer, int head);
void step_head(ModelUi& m, int step);
// "Open in the lab": the chosen head's q, k, v (kept by the run, or recomputed for a long text) lifted into the
// document (one undoable action) and closes the Model window so the pipeline shows. The banner is
// the lifted title while the document is it.
void lift_chosen_head(AppState& state);
// The banner over the pipeline, "GPT-2 · layer 5 · head 1", or empty when the shown result is no
// lifted head (shown_scenario: it labels the pipeline, which may be a frame behind the document).
std::string model_banner(const AppState& state);

}  // namespace attnlab::gui
