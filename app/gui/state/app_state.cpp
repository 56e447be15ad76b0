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

const Matrix& stage_matrix(const Result& r, Stage s) {
  switch (s) {
    case Stage::Scores: return r.scores;
    case Stage::Logits: return r.logits;
    case Stage::Weights: return r.weights;
    case Stage::Output: return r.output;
    case Stage::Saturation: return r.saturation;
    case Stage::Pipeline: break;  // a figure, not one matrix
  }
  return r.weights;
}

bool stage_is_signed(Stage s) { return s == Stage::Scores || s == Stage::Logits || s == Stage::Output; }

std::vector<std::string> query_labels(const AppState& s) {
  return display_tokens(s.doc.scenario.query_tokens, s.doc.scenario.Q.rows());
}

std::vector<std::string> key_labels(const AppState& s) {
  return display_tokens(s.doc.scenario.key_tokens, s.doc.scenario.K.rows());
}

bool& window_open(AppState& state, const char* name) { return state.view.open_windows[name]; }

bool inputs_column_hidden(const AppState& s) { return s.view.inputs_hidden || s.inputs_auto_folded; }

void toggle_inputs_column(AppState& s) {
  if (s.inputs_auto_folded) {
    // The user asked for the column presenter mode had folded: stop folding it (View menu turns it back on).
    s.view.inputs_auto_fold = false;
    s.inputs_auto_folded = false;
    s.view.inputs_hidden = false;
    return;
  }
  s.view.inputs_hidden = !s.view.inputs_hidden;
}

}  // namespace attnlab::gui
