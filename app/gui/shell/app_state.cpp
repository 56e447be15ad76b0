// The inputs column's folding, which the shell's layout and the View menu share (app_state.hpp).
#include "gui/shell/app_state.hpp"

namespace attnlab::gui {

bool inputs_column_hidden(const AppState& s) { return s.view.inputs_hidden || s.layout.inputs_auto_folded; }

void toggle_inputs_column(AppState& s) {
  if (s.layout.inputs_auto_folded) {
    // The user asked for the column presenter mode had folded: stop folding it (View menu turns it back on).
    s.view.inputs_auto_fold = false;
    s.layout.inputs_auto_folded = false;
    s.view.inputs_hidden = false;
    return;
  }
  s.view.inputs_hidden = !s.view.inputs_hidden;
}

}  // namespace attnlab::gui
