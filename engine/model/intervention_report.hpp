// The interventions' part of `attnlab model`'s JSON and text (docs/CLI.md, "Interventions"): what
// was ablated or patched with the unchanged model's next tokens beside the changed model's, the
// second text compared head by head, the logit lens. model_report.cpp calls these.
#pragma once

#include "engine/model/model_report.hpp"

#include <iosfwd>

namespace attnlab::model {

// ",\n\"intervention\": …, \"clean_next_token\": …", ",\n\"compare\": …", ",\n\"logit_lens\": …",
// ",\n\"cache\": {\"window\", \"sinks\"}" for what the run holds (nothing when it holds none of them).
void write_experiment_json(std::ostream& out, const LanguageModel& model, const ModelRun& run);
// The two next-token lists side by side, under a line naming the heads and how they were changed.
void write_intervention_text(std::ostream& out, const LanguageModel& model, const ModelRun& run);
// The second text's tokens and next tokens, and the heads whose strongest key changed.
void write_comparison_text(std::ostream& out, const LanguageModel& model, const ModelRun& run);
// A line per layer: the top tokens if the model stopped after it.
void write_lens_text(std::ostream& out, const LanguageModel& model, const ModelRun& run);

}  // namespace attnlab::model
