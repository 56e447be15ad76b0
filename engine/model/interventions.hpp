// Interventions on heads (docs/MODELS.md, "Interventions"): a head's output knocked out (zero,
// mean, uniform weights), patched in from a second text, or replaced by a lab's edit; two texts
// compared head by head; the logit lens read after each layer. The forward applies the edits
// (HeadEdit in language_model.hpp) through apply_head_edit; this file parses what the command
// line names and runs the experiments over the LanguageModel interface, whatever the family.
#pragma once

#include "engine/model/decoder_blocks.hpp"
#include "engine/model/language_model.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace attnlab::model {

struct HeadIndex {
  int layer = 0, head = 0;
  friend bool operator==(const HeadIndex&, const HeadIndex&) = default;
};

// "1.0,2.3": heads as L.H, both from 0, checked against the model, no head twice. Throws
// InputError naming `what` ("--ablate").
std::vector<HeadIndex> parse_heads(std::string_view list, const ModelConfig& config, std::string_view what);
// "zero" | "mean" | "uniform". Throws InputError naming `what`.
HeadEdit::Kind parse_ablation(std::string_view name, std::string_view what);
// The name parse_ablation reads ("replace" for a patch's kind).
std::string_view ablation_name(HeadEdit::Kind kind);

// The edits that ablate `heads` with `kind` (Zero, Mean or Uniform).
std::vector<HeadEdit> ablation_edits(const std::vector<HeadIndex>& heads, HeadEdit::Kind kind);
// The edits that patch `heads` with their outputs in `source`, a forward over a second text of
// the same token count that kept its outputs (ForwardOptions::keep_outputs).
std::vector<HeadEdit> patch_edits(const std::vector<HeadIndex>& heads, const ForwardTrace& source);

// Checks edits against a forward over n positions (the layer and head, each head once, a
// replacement's shape). Throws InputError.
void check_edits(const std::vector<HeadEdit>& edits, const ModelConfig& config, std::int64_t n);
// Applies one edit of layer `edit.layer` inside the forward: `out` (n × n_head·d_head, row stride
// ldo) is the layer's heads' outputs before the output projection, `v` (m = start + n rows, stride
// ldv) the K/V heads' values attended over. Uniform also writes the head's kept weights (null when
// not kept).
void apply_head_edit(const HeadEdit& edit, const blocks::AttentionShape& shape, const float* v, std::int64_t ldv, float* out, std::int64_t ldo,
                     CausalWeights* weights);

// A toy model's accuracy on its task's judged sequences (training_tasks.hpp: the induction task's
// copies, the sort task's sorted half) with `edits` applied to every sequence: how many judged
// positions' most probable next token is the right one. `sequences` drawn from `seed`, the same on
// every machine. Throws InputError when the model has no task (not a toy model) and for bad edits.
struct TaskAccuracy {
  int right = 0, counted = 0;
  double value() const { return counted ? static_cast<double>(right) / counted : 0.0; }
};
TaskAccuracy task_accuracy(const LanguageModel& model, const std::vector<HeadEdit>& edits, int sequences, std::uint64_t seed);

// One head on two texts of the same token count: the largest |difference| of its weights, and
// whether any query's strongest key differs.
struct HeadComparison {
  double max_abs_diff = 0;
  bool argmax_changed = false;
};
// [layer][head] over two traces that kept their weights. Throws InputError when their token
// counts differ.
std::vector<std::vector<HeadComparison>> compare_heads(const ForwardTrace& a, const ForwardTrace& b);
// The key a query row gives its largest weight (the first on a tie).
std::int64_t strongest_key(const CausalWeights& weights, std::int64_t row);

}  // namespace attnlab::model
