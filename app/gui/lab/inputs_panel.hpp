// Inputs: the sizes (+/−), self-attention, Q/K/V as editable grids with token labels, fills, and a
// sentence split into tokens; and the two questions the inputs ask before they change the document
// (a resize to large matrices, a dropped matrix file's Q, K or V).
#pragma once

#include "gui/lab/lab_ui.hpp"
#include "gui/state/commands.hpp"
#include "gui/state/edits.hpp"
#include "gui/state/view_context.hpp"

namespace attnlab::gui {

// Reads the live document; edits it through the catalogue (Edit, Resize, EndMerge). A cell's text
// that does not parse is the panel's own to say (InputsUi::cell_error).
void draw_inputs_panel(const ViewContext& ctx, InputsUi& ui, Commands& out);

// "Large matrices": the resize the user must say yes to first (its stages are big, or it streams),
// asked in a modal while `pending` is active; yes is the Resize again, confirmed.
void draw_confirm_resize(PendingResize& pending, Commands& out);
// "Load matrix": a dropped .npy/.csv (InputsUi::drop_path) loaded into Q, K or V as the user chooses.
void draw_drop_choice(InputsUi& ui, Commands& out);

}  // namespace attnlab::gui
