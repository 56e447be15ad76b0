// The precision lesson's page (precision_page.cpp): the scenario in float32, float16 and bfloat16,
// with and without max-subtraction, with three mask fills; the chosen run's weights and verdict.
#pragma once

#include "engine/lessons/precision.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

struct PrecisionUi {
  int run = 9;  // which of the 18 runs is shown cell by cell: float16, no max-subtraction, −∞ (the overflow)
};

void draw_precision_page(const PageInputs& in, const PrecisionNumbers* numbers, PrecisionUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the largest logit float16 can exponentiate,
// and which runs break.

}  // namespace attnlab::gui
