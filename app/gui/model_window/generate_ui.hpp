// The Model window's generation (generate_panel.cpp, docs/MODELS.md "Generation"): the
// sampling settings the temperature slider and its neighbours edit, the generator the draws come
// from, and each written token's draw. Plain data; generate_actions.hpp changes it.
#pragma once

#include "engine/model/model_report.hpp"
#include "engine/model/sampling.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::gui {

struct GenerateUi {
  model::SamplingOptions sampling{0.8, 0, 1.0, 1};  // T, top-k (0: all), top-p (1: all), seed
  int count = 20;                                   // "Generate" writes this many tokens; "One token" one
  // The draws' generator, carried from one Generate to the next so that pressing "One token" again
  // draws the next number of the seed's stream, not its first again; made afresh when the seed
  // changes (null until the first Generate).
  std::shared_ptr<model::Sampler> sampler;
  // Each written token's draw, by its position in the text (a token typed over is forgotten).
  std::map<std::int64_t, model::DrawnToken> drawn;
  std::string base_text;  // while writing: the text before the tokens being written
  // The bars' distribution, computed once per run and setting: the run whose logits it came from
  // and the settings it was computed for.
  std::weak_ptr<const model::ModelRun> bars_run;
  model::SamplingOptions bars_sampling{-1, 0, 1, 0};
  model::TokenDistribution bars;
  std::vector<int> bars_ids;  // the most probable tokens, most probable first
};

}  // namespace attnlab::gui
