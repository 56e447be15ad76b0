// The mask-family lesson's page (mask_family_page.cpp): bidirectional, causal, padding, prefix-LM and
// sliding window on the same scores. No UI state of its own.
#pragma once

#include "engine/lessons/mask_family.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_mask_family_page(const PageInputs& in, const MaskFamilyNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): which cells each mask blocks, and a masked
// row's weights.

}  // namespace attnlab::gui
