// The Model window's interventions (docs/MODELS.md, "Interventions"; intervention_actions.hpp):
// heads knocked out, patched from a second text or replaced by the lab's edit, the logit lens, a
// second text compared head by head, attention sinks. Plain data in ModelUi.
#pragma once

#include "engine/model/interventions.hpp"
#include "engine/model/model_report.hpp"

#include <memory>
#include <string>
#include <vector>

namespace attnlab::gui {

// A head "Open in the lab" lifted: the lab's banner names it by its title, and the lab's edit of it
// can be put back into the model in its place.
struct LiftedHead {
  std::string title;
  model::HeadIndex head;
  std::vector<int> ids;  // the text it was lifted from
};

// The lab's result for a lifted head, as the lab last computed it: what its edits (a weight, the
// temperature, RoPE off) make of the head's output, and the weights that made it.
struct LabHead {
  LiftedHead lifted;
  Matrix output, weights;
  std::uint64_t version = 0;  // the lab's result_version they were taken from (0: none yet)
};

struct InterventionUi {
  std::vector<model::HeadIndex> knocked_out;                 // in the order clicked
  model::HeadEdit::Kind ablation = model::HeadEdit::Kind::Zero;  // zero, mean or uniform
  bool lens = false;                                         // the logit lens at the last token
  // Two texts side by side: the same model, the same heads out, on a second text of the same
  // token count; the grid shows one text's maps or the other's.
  bool compare = false;
  std::string second_text;
  // Which maps the grid shows: this text's, the second's, or |this − second| per cell.
  enum class Maps { First, Second, Difference } maps = Maps::First;
  // Patching: these heads' outputs on this text replaced by their outputs on the second text.
  std::vector<model::HeadIndex> patched;
  // The lab's edit of a lifted head put back into the model in the head's place.
  bool use_lab = false;
  LabHead lab;
  bool sinks = false;  // the heads listed by their share of weight on the first token
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
  // The first text's run with every head's weights replaced by |first − second|, cell by cell.
  std::shared_ptr<const model::ModelRun> difference;
  double ms = 0;       // how long the last remake took
  std::string error;   // why it could not run (the window's run stays)
};

}  // namespace attnlab::gui
