// A model run as the command line and the GUI show it (docs/MODELS.md): every head's weights and
// kind, the next tokens, `attnlab model`'s JSON and text, a head lifted into a Scenario, and MODEL
// as the command line names it. Only the LanguageModel interface is used, whatever the family.
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/model/bounded_cache.hpp"
#include "engine/model/head_kinds.hpp"
#include "engine/model/head_links.hpp"
#include "engine/model/interventions.hpp"
#include "engine/model/language_model.hpp"
#include "engine/model/sampling.hpp"

#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::model {

// What `model`'s interventions ask of one run (docs/CLI.md, "Interventions"): heads ablated or
// patched from a second text, a second text compared head by head, the logit lens.
struct Experiment {
  std::vector<HeadIndex> ablate;
  HeadEdit::Kind ablation = HeadEdit::Kind::Zero;
  std::vector<HeadIndex> patch;
  std::vector<int> patch_ids;    // the second text the patched heads' outputs come from
  std::vector<int> compare_ids;  // the second text compared with (empty: none)
  std::int64_t lens_position = -1;  // the logit lens's position (−1: none)
};

// An ablation or patch: what was changed and the unchanged model's next tokens.
struct InterventionResult {
  bool patch = false;
  std::vector<HeadIndex> heads;
  HeadEdit::Kind ablation = HeadEdit::Kind::Zero;
  std::vector<NextToken> clean_next_tokens;
};

// A second text run through the same (changed) model, compared head by head.
struct ComparisonResult {
  ForwardTrace trace;
  std::vector<std::vector<HeadComparison>> heads;  // [layer][head]
};

struct ModelRun {
  ForwardTrace trace;
  std::vector<std::vector<HeadVerdict>> kinds;  // [layer][head]; empty when weights were not kept
  std::vector<DrawnToken> generated;            // --generate: the tokens written, the last of trace.ids (generate.hpp)
  std::vector<HeadLink> links;                  // --link: every head by its weight from one token to another (head_links.hpp)
  std::optional<InterventionResult> intervention;  // --ablate, --patch
  std::optional<ComparisonResult> comparison;      // --compare-text, --compare-ids
  std::int64_t lens_position = -1;                 // --logit-lens: trace.lens's position
  std::optional<CacheBound> cache;                 // --cache-window: `generated` was written over this bounded cache
};

// Runs the forward pass and classifies every head (when the weights are kept).
ModelRun run_model(const LanguageModel& model, const std::vector<int>& ids, const ForwardOptions& options);
// run_model with an experiment: the patch's source forward first (same token count, else
// InputError), the unchanged model's next tokens, then the changed forward, the second text
// compared through the same changed model, the logit lens. Bad heads throw InputError.
ModelRun run_experiment(const LanguageModel& model, const std::vector<int>& ids, ForwardOptions options, const Experiment& experiment);
// Every head's kind on the trace's tokens; empty when its weights were not kept.
std::vector<std::vector<HeadVerdict>> classify_heads(const ForwardTrace& trace);

// Checks a layer and head against the model; `what` prefixes the sentence ("--layer").
void check_head(const LanguageModel& model, int layer, int head);

// "GPT-2 · layer 5 · head 1": the lifted scenario's title and the GUI's banner.
std::string head_title(const LanguageModel& model, int layer, int head);

// A head lifted out of a run: its q and k before any rotation, its K/V group's k and v, as Q, K,
// V with the tokens as labels, the mask the model uses (causal, or its sliding window), scaling
// on, T = 1, and the model's rotary positions on (its "rope": positions 0 … n − 1), so that the
// lab's scores are the model's rotated products and its weights the model's own. The run must
// have kept that head's q, k, v.
Scenario lift_head(const LanguageModel& model, const ModelRun& run, int layer, int head);

// The token labels of `ids` (token_label: how each reads on one line; "<id>" for a model without a
// tokenizer).
std::vector<std::string> token_labels(const LanguageModel& model, const std::vector<int>& ids);

// {"model": {...}, "tokens", "attention", "heads", "next_token"} (and "q", "k", "v" when a head
// is chosen): `attnlab model --format json`, docs/CLI.md's contract.
void write_model_json(std::ostream& out, const LanguageModel& model, const ModelRun& run, int layer, int head);
// A next-token list as JSON: [{"id", "text", "prob"}, …].
void write_next_tokens_json(std::ostream& out, const LanguageModel& model, const std::vector<NextToken>& tokens);
// Tokens, a layers × heads table of head kinds, the top next tokens.
void write_model_text(std::ostream& out, const LanguageModel& model, const ModelRun& run, int layer, int head);

// The built-in models (`attnlab models`): assets/models/NAME/, embedded in the binary, made by
// `attnlab train` (docs/MODELS.md, "Built-in models").
struct BuiltinModel {
  std::string name, task, title;
  int n_layer = 0, n_head = 0;
  std::int64_t parameters = 0;
};
std::vector<BuiltinModel> builtin_models();

// MODEL as the command line takes it: ollama:NAME[:TAG] or lmstudio:PUBLISHER/REPO[/FILE.gguf]
// (local_stores.hpp); a folder, a .safetensors or a GGUF file; else a built-in model's name; else a
// Hugging Face repo id ("HuggingFaceTB/SmolLM2-135M", "gpt2") in the local cache (hf_cache.hpp).
// Throws InputError; a name not found is answered with the folders searched and the command that
// would fetch it.
std::unique_ptr<LanguageModel> open_model(const std::string& spec);

// Parses "--ids 1,2,3". Throws InputError naming `what`.
std::vector<int> parse_ids(std::string_view list, std::string_view what);

}  // namespace attnlab::model
