// What the Model window does to its ModelUi (docs/MODELS.md): open a model, retokenize the text as it
// is typed and start a background run, poll it, choose a head, lift it into the lab. What else the
// app must do (the window shown, a head put into the document) comes back as commands. No ImGui: the
// panel tests call these as the window's widgets do.
#pragma once

#include "engine/io/scenario.hpp"
#include "gui/model_window/model_ui.hpp"
#include "gui/state/commands.hpp"

#include <string>

namespace attnlab::gui {

// Opens a model folder or .safetensors file and runs its text (on a thread when `threaded`:
// PlatformTraits); on failure sets m.error and keeps the model that was open. Either way the Model
// window is shown (ShowWindow).
Commands open_model_file(ModelUi& m, const std::string& path, bool threaded);
// The Training window's "Open in the Model window" (OpenInModelWindow): the folder opened on the
// request's text, its head chosen.
Commands open_model_file(ModelUi& m, const OpenInModelWindow& request, bool threaded);
// True for what a drop should open as a model: a folder, a .safetensors or a .gguf file.
bool is_model_path(const std::string& path);
// The text box's tokens: the tokenizer's, or for a model without one (a folder with no
// tokenizer.json) the token ids typed in it ("5, 17, 42"; blank: none). Throws InputError saying why.
std::vector<int> text_ids(const model::LanguageModel& model, const std::string& text);
// Which tokenizer file a model lacks, and how ("DIR/tokenizer.json: missing").
std::string missing_tokenizer_file(const model::LanguageModel& model);
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
// "Open in the lab": the chosen head's q, k, v (kept by the run, or recomputed for a long text) as
// the document (LoadScenario: one undoable action), after which the Model window steps aside so the
// pipeline shows; its title, head and text noted (the banner, the lab's edit put back). A head that cannot be lifted says why in m.error
// and asks nothing.
Commands lift_chosen_head(ModelUi& m);
// The banner over the pipeline, "GPT-2 · layer 5 · head 1", or empty when `shown` (the scenario of
// the shown result, which may be a frame behind the document) is no head lifted from the window.
std::string model_banner(const ModelUi& m, const Scenario& shown);
// The head lifted from the window that `shown` is, or null.
const LiftedHead* lifted_head(const ModelUi& m, const Scenario& shown);

}  // namespace attnlab::gui
