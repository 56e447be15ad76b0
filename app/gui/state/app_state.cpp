// Small lookups over AppState shared by the panels.
#include "gui/state/app_state.hpp"

namespace attnlab::gui {

const char* which_name(Which w) {
  switch (w) {
    case Which::Q: return "Q";
    case Which::K: return "K";
    case Which::V: return "V";
  }
  return "";
}

const char* dim_name(Dim d) {
  switch (d) {
    case Dim::N: return "n";
    case Dim::M: return "m";
    case Dim::Dk: return "d_k";
    case Dim::Dv: return "d_v";
  }
  return "";
}

const Scenario& shown_scenario(const AppState& s) {
  return s.results.computed_doc ? s.results.computed_doc->scenario : s.doc.scenario;
}

bool result_is_current(const AppState& s) {
  return s.results.has_result && s.results.computed_doc && s.results.computed_version == s.doc_version;
}

std::vector<std::string> query_labels(const Scenario& s) { return display_tokens(s.query_tokens, s.Q.rows()); }

std::vector<std::string> key_labels(const Scenario& s) { return display_tokens(s.key_tokens, s.K.rows()); }

bool& window_open(ViewSettings& view, const char* name) { return view.open_windows[name]; }

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
