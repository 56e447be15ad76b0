// The Model window's interventions (docs/MODELS.md, "Interventions"; intervention_actions.hpp):
// heads knocked out and the logit lens. Plain data in ModelUi.
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
  // The run with the heads knocked out (and the lens), on `from`'s tokens; null while nothing is
  // asked or the window's run is in progress. Its maps and next tokens are what the window shows.
  std::shared_ptr<const model::ModelRun> changed;
  std::shared_ptr<const model::ModelRun> from;  // the window's run it was made from
  // Every token's next-token probability after the last position: the model as it is, and changed.
  std::vector<double> before, after;
  double ms = 0;                                // how long it took
  std::string error;                            // why it could not run (the window's run stays)
};

}  // namespace attnlab::gui
