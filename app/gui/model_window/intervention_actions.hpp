// What the Model window's interventions do (intervention_ui.hpp): a head knocked out or restored,
// the ablation's kind, the logit lens, and the changed run made again whenever the window's run or
// what is asked changes. One forward with the edits, on the window's thread: an ablation on the
// GPT-2-small shape over 64 tokens takes about 0.18 s (docs/PERFORMANCE.md).
#pragma once

#include "gui/model_window/model_ui.hpp"

namespace attnlab::gui {

// Knocks the head out, or restores it when it is out.
void toggle_knock_out(ModelUi& m, int layer, int head);
bool knocked_out(const ModelUi& m, int layer, int head);
// Makes `changed` again when the window's run, the heads, the kind or the lens changed since;
// drops it when nothing is asked. Does nothing while a run is in progress.
void refresh_intervention(ModelUi& m);
// The run the grid and the next tokens show: the changed one when there is one, else the window's.
const model::ModelRun* shown_run(const ModelUi& m);

}  // namespace attnlab::gui
