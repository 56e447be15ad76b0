// The classroom walk-through, which runs on any lesson's result: what each step shows (pure data, so
// tests can check every step), and the actions that move between steps (no ImGui: the walk-through
// view's buttons and keys call them, walkthrough_view.hpp).
#pragma once

#include "engine/io/scenario.hpp"
#include "engine/text/text_format.hpp"
#include "gui/lessons/lessons_ui.hpp"
#include "gui/state/commands.hpp"

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

// From the first step; the "Lesson view" window, where it is drawn, is shown (ShowWindow).
Commands walk_start(WalkthroughUi& walk);
void walk_stop(WalkthroughUi& walk);
void walk_forward(WalkthroughUi& walk);  // stops at the last step
void walk_back(WalkthroughUi& walk);     // stops at the first

}  // namespace attnlab::gui
