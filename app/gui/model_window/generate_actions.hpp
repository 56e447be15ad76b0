// What the Model window's Generate controls do to its ModelUi (docs/MODELS.md, "Generation"):
// write tokens after the text over the KV cache, stop, take each written token into the text and
// the grid, and the next-token distribution the bars show at the chosen temperature. No ImGui: the
// panel tests call these as the controls do.
#pragma once

#include "gui/model_window/model_ui.hpp"

#include <cstdint>
#include <vector>

namespace attnlab::gui {

// Writes `count` tokens after the text with the window's sampling settings (the slider's T, top-k,
// top-p, the seed's generator), on the background thread; each arrives in the text, the chips and
// the grid as it is written. Refused in place (m.error) while a run is in progress, before the text
// has run, or past the model's positions.
void generate_tokens(ModelUi& m, int count, bool threaded);
// Stop: the token being run is dropped, those written stay (the next poll takes them).
void stop_generation(ModelUi& m);
// A run the job published: its written tokens become the text's end, with their draws kept by
// position; draws of positions the text no longer has (typed over) are forgotten.
void take_generated(ModelUi& m, const model::ModelRun& run);
// The next-token distribution after the text at the window's settings, and the most probable
// tokens, for the bars: computed once per run and setting. Null before a run.
const model::TokenDistribution* next_token_bars(ModelUi& m, std::vector<int>* ids = nullptr);
// Sets the seed (a new generator from the next Generate on).
void set_generate_seed(ModelUi& m, std::uint64_t seed);

}  // namespace attnlab::gui
