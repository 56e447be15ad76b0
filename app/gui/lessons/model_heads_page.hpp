// The model-heads lesson's page (model_heads_page.cpp): the pipeline's hand-made head named by the
// Model window's detector, then the Model window's model's heads counted by kind, the clearest of
// each one click from the lab, and with a model trained on text the course text's "it" → "animal"
// question. It reads the Model window's state and asks it for everything by commands.
#pragma once

#include "engine/lessons/model_heads.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

struct ModelHeadsUi {
  // With no model open the page opens the built-in induction model on its probe sequence, once (a
  // failure is not retried every frame).
  bool builtin_model_tried = false;
};

// Asks for the Model window's run to be taken as it finishes (FollowModelRun), since its window may
// be closed while the page lists the heads.
void draw_model_heads_page(const PageInputs& in, const ModelHeadsNumbers* numbers, ModelHeadsUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): which earlier token an induction head will
// attend to.

}  // namespace attnlab::gui
