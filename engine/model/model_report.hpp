// A model run as the command line and the GUI show it (docs/MODELS.md): every head's weights and
// kind, the next tokens, `attnlab model`'s JSON and text, and a head lifted into a Scenario.
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/model/gpt2_model.hpp"
#include "engine/model/head_kinds.hpp"

#include <filesystem>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::model {

struct ModelRun {
  ForwardTrace trace;
  std::vector<std::vector<HeadVerdict>> kinds;  // [layer][head]; empty when weights were not kept
};

// Runs the forward pass and classifies every head (when the weights are kept).
ModelRun run_model(const Gpt2Model& model, const std::vector<int>& ids, const ForwardOptions& options);

// Checks a layer and head against the model; `what` prefixes the sentence ("--layer").
void check_head(const Gpt2Model& model, int layer, int head);

// "GPT-2 · layer 5 · head 1": the lifted scenario's title and the GUI's banner.
std::string head_title(const Gpt2Model& model, int layer, int head);

// The head's q, k, v as Q, K, V with the tokens as labels, a causal mask, scaling on and T = 1:
// its weights are the model's own. The run must have kept that head's q, k, v.
Scenario lift_head(const Gpt2Model& model, const ModelRun& run, int layer, int head);

// The token labels of `ids` (GPT-2's text of each token).
std::vector<std::string> token_labels(const Gpt2Model& model, const std::vector<int>& ids);

// {"model": {...}, "tokens", "attention", "heads", "next_token"} (and "q", "k", "v" when a head
// is chosen): `attnlab model --format json`, DESIGN's contract.
void write_model_json(std::ostream& out, const Gpt2Model& model, const ModelRun& run, int layer, int head);
// Tokens, a layers × heads table of head kinds, the top next tokens.
void write_model_text(std::ostream& out, const Gpt2Model& model, const ModelRun& run, int layer, int head);

// The built-in models (`attnlab models`): assets/models/NAME/, embedded in the binary, made by
// `attnlab train` (docs/MODELS.md, "Built-in models").
struct BuiltinModel {
  std::string name, task, title;
  int n_layer = 0, n_head = 0;
  std::int64_t parameters = 0;
};
std::vector<BuiltinModel> builtin_models();

// MODEL as the command line takes it: a built-in model's name, a folder, or a .safetensors file.
std::unique_ptr<Gpt2Model> open_model(const std::string& spec);

// Writes the model's files into `dir` (created; existing files are refused unless `force`).
void save_model(const Gpt2Model& model, const std::filesystem::path& dir, bool force);

// Parses "--ids 1,2,3". Throws InputError naming `what`.
std::vector<int> parse_ids(std::string_view list, std::string_view what);

}  // namespace attnlab::model
