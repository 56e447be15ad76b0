// The induction-head lesson's page (train_induction_page.cpp): "Watch an induction head form", five
// steps that the walk-through's keys move through: the task and the hand-made induction head; a
// two-layer model trained from scratch on the Training window's thread; the phase change on the
// curve; then layer 0's previous-token head and layer 1's induction head lifted into the lab. It reads
// the Training window's state and asks it for everything by commands.
#pragma once

#include "engine/lessons/train_induction.hpp"
#include "gui/lessons/lesson_page.hpp"
#include "gui/training/training_ui.hpp"

#include <string>
#include <vector>

namespace attnlab::gui {

inline constexpr int kInductionSteps = 5;

struct TrainInductionUi {
  TrainInductionUi();    // at ATTNLAB_GUI_STEP's step (1-based), for screenshots; else the first
  int step = 0;          // the step shown (0-based)
  int entered = -1;      // the step whose action (start training, lift a head) has been taken
  int lift_layer = -1;   // the layer of the head the lesson lifted last
  int maps_layer = 0;    // in presenter mode, the layer whose heads the training steps show (↑ ↓)
};

void draw_train_induction_page(const PageInputs& in, const TrainInductionNumbers* numbers, TrainInductionUi& ui, Commands& out);

// The phase-change step's sentence while the curve has no sudden fall: on its plateau, falling (the
// fall found once the loss levels off after it), or a whole run without one. It never says plateau
// once the loss is a fifth below where it started (issue 69: "still on its plateau" beside a chart
// at 0.74).
std::string no_phase_change_text(const std::vector<TrainingPoint>& points, int step, int steps);

// The page goes on with the heads it lifts into the lab (whose documents are no lesson's): while the
// shown scenario is the lesson's own or a head lifted from the Training window.
bool train_induction_goes_on(const Scenario& shown, const TrainingUi& training);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): which earlier token an induction head will
// attend to.

}  // namespace attnlab::gui
