// What the Model window's interventions do (intervention_ui.hpp): a head knocked out, patched from
// a second text or replaced by the lab's edit, and the changed run, the logit lens and the second
// text's run made again whenever the window's run or what is asked changes. One forward with the
// edits (two with a second text), on the window's thread: an ablation on the GPT-2-small shape over
// 64 tokens takes about 0.18 s (docs/PERFORMANCE.md).
#pragma once

#include "gui/model_window/model_ui.hpp"
#include "gui/state/view_context.hpp"

#include <string>

namespace attnlab::gui {

// Knocks the head out, or restores it when it is out (a patched head is then no longer patched).
void toggle_knock_out(ModelUi& m, int layer, int head);
bool knocked_out(const ModelUi& m, int layer, int head);
// Patches the head from the second text, or stops (a head knocked out is then no longer out).
void toggle_patch(ModelUi& m, int layer, int head);
bool patched(const ModelUi& m, int layer, int head);
// Notes the lab's result while the lab shows a head lifted from this window, as its edit to put
// back into the model (InterventionUi::lab); a new result asks for the changed run again.
void take_lab_head(ModelUi& m, const ViewContext& ctx);
// Whether the window's model is changed (heads knocked out, patched, the lab's edit put back) and
// the changed run made.
bool changes_model(const ModelUi& m);
// The pair "QKV, Scaled Dot-Product & Causal Masking" (Section 2.3) reads "it" by: the same
// sentence ending "tired" and "wide", where "it" is the animal and then the street.
inline constexpr const char* kItTired = "The animal didn't cross the street because it was too tired";
inline constexpr const char* kItWide = "The animal didn't cross the street because it was too wide";
// Makes the changed run, the lens and the second text's run again when the window's run or what is
// asked changed since; drops them when nothing is asked. Does nothing while a run is in progress.
void refresh_intervention(ModelUi& m);
// The run the grid and the enlarged map show: the second text's when asked, else the changed one
// when heads are out, else the window's.
const model::ModelRun* shown_run(const ModelUi& m);
// The difference of head (layer, head) between the two texts, or null when none is compared.
const model::HeadComparison* head_difference(const ModelUi& m, int layer, int head);

}  // namespace attnlab::gui
