// The Model window's UI state (model_window.cpp, docs/MODELS.md "The Model window"): the open model,
// its text and the last run, Generate's settings and draws, the two linked tokens, the chosen head.
// Never part of the document; "Open in the lab" lifts a head into it (model_actions.hpp). Plain data:
// the actions of this folder change it.
#pragma once

#include "engine/model/generate.hpp"
#include "engine/model/local_stores.hpp"
#include "engine/model/model_report.hpp"
#include "gui/model_window/generate_ui.hpp"
#include "gui/model_window/head_link_ui.hpp"
#include "gui/model_window/intervention_ui.hpp"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab::gui {

class ModelJob;  // model_job.hpp

struct ModelUi {
  std::shared_ptr<const model::LanguageModel> model;  // null until one opens
  std::string path;        // where it was opened from
  std::string path_input;  // the window's "open" field
  // The models on this computer (models --local's list: the Hugging Face cache, Ollama, LM Studio),
  // once the user asks: reading every header takes a moment.
  std::optional<std::vector<model::LocalModel>> local_models;
  std::string error;       // why the last open, text or run was refused (the last good state stays)
  std::string text = "When Mary and John went to the store, John gave a drink to Mary. When Mary and John went to the store, John gave";
  std::vector<int> ids;    // the text's tokens, updated as it is typed
  std::shared_ptr<ModelJob> job;                  // the run in progress, if any
  std::shared_ptr<const model::ModelRun> run;     // the last finished run (ids: run->trace.ids)
  // The text run so far over a KV cache (engine/model/generate.hpp), which jobs extend and cut: used
  // by the job in progress alone while there is one.
  std::shared_ptr<model::CachedSequence> sequence;
  GenerateUi generate;     // Generate, the temperature slider, each written token's draw (generate_ui.hpp)
  bool cancelled = false;  // the user cancelled the last run: the map shows the run before it
  int layer = 0, head = 0; // the chosen head (keyboard, clicks)
  bool enlarged = false;   // the chosen head drawn large instead of the grid
  HeadLinkUi link;         // two chips clicked: every head ranked by its weight between them (head_link_ui.hpp)
  InterventionUi intervention;  // heads knocked out, the logit lens (intervention_ui.hpp)
  HeadHover hover;         // the cell under the mouse this frame
  KeyLabelLayout drawn_keys;  // the key tokens the enlarged map drew last (none while the grid shows)
  bool scroll_to_chosen = false;  // the keys chose a head: the grid scrolls it into view
  std::vector<LiftedHead> lifted;  // heads lifted into the lab (the banner; the lab's edit put back)
};

}  // namespace attnlab::gui
