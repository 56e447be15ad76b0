// The classroom walk-through: what each step shows (pure data, so tests can check every step),
// and moving between steps.
#pragma once

#include "gui/shell/app_state.hpp"
#include "gui/state/services.hpp"

#include <string>
#include <vector>

namespace attnlab::gui {

struct WalkMatrix {
  std::string name;                         // "scores", "Q", ...
  Stage stage = Stage::Scores;              // decides the colours
  Matrix values;                            // rows × cols
  BlockGrid blocked;                        // rows × cols, or 0 × 0 when nothing is blocked
  std::vector<std::string> row_labels, col_labels;
};

struct WalkFrame {
  int step = 0;
  std::string title;    // "Step 3 of 6: ÷ √d_k"
  std::string formula;  // with the current numbers: "L = S ÷ √2 = S ÷ 1.414"
  std::string what;     // what changed, in words
  std::vector<WalkMatrix> before;  // the step's inputs, drawn on the left
  WalkMatrix now;                  // what this step produced
  std::vector<WalkMatrix> also;    // further results shown beside `now` (the inputs Q, K, V)
  BlockGrid changed;               // cells of `now` that differ from the step before (highlighted)
  long long changed_count = 0;
};

// The frame of `step` (0 … kWalkSteps − 1) for the scenario and its result.
WalkFrame walk_frame(const Scenario& s, const Result& r, int step, const Glyphs& g);

const char* walk_step_name(int step);  // "inputs", "scores", "÷ √d_k", "mask", "softmax", "· V"

void walk_start(AppState& state);  // from the first step, and opens the "Lesson view" window
void walk_stop(AppState& state);
void walk_forward(AppState& state);
void walk_back(AppState& state);
// Space / → / PageDown forward, ← / PageUp back, Esc leaves; only while the walk-through is on
// and no text field has the keyboard.
void handle_walk_keys(AppState& state);

}  // namespace attnlab::gui
