// The Model window's interventions (docs/MODELS.md, "Interventions"; intervention_actions.hpp):
// heads knocked out, the logit lens, and a second text compared head by head. Plain data in
// ModelUi.
#pragma once

#include "engine/model/interventions.hpp"
#include "engine/model/model_report.hpp"

#include <memory>
#include <string>
#include <vector>

namespace attnlab::gui {

struct InterventionUi {
  std::vector<model::HeadIndex> knocked_out;                 // in the order clicked
  model::HeadEdit::Kind ablation = model::HeadEdit::Kind::Zero;  // zero, mean or uniform
  bool lens = false;                                         // the logit lens at the last token
  // Two texts side by side: the same model, the same heads out, on a second text of the same
  // token count; the grid shows one text's maps or the other's.
  bool compare = false;
  std::string second_text;
  bool show_second = false;
  bool dirty = true;  // what is asked changed since `changed` and `second` were made

  // The run with the heads knocked out (and the lens), on `from`'s tokens; null while nothing is
  // asked or the window's run is in progress. Its maps and next tokens are what the window shows.
  std::shared_ptr<const model::ModelRun> changed;
  std::shared_ptr<const model::ModelRun> from;  // the window's run they were made from
  // Every token's next-token probability after the last position: the model as it is, and changed.
  std::vector<double> before, after;
  // The second text's run and each head's difference from the first's ([layer][head]).
  std::shared_ptr<const model::ModelRun> second;
  std::vector<std::vector<model::HeadComparison>> differences;
  double ms = 0;       // how long the last remake took
  std::string error;   // why it could not run (the window's run stays)
};

}  // namespace attnlab::gui
