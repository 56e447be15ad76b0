// The self-cross lesson's page (self_cross_page.cpp): a sequence attending to itself beside decoder
// queries attending to encoder keys. No UI state of its own.
#pragma once

#include "engine/lessons/self_cross.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_self_cross_page(const PageInputs& in, const SelfCrossNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the shapes of the two score matrices, a
// cross-attention row's weights.

}  // namespace attnlab::gui
