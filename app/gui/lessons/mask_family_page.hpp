// The mask-family lesson's page (mask_family_page.cpp): bidirectional, causal, padding, prefix-LM and
// sliding window on the same scores. No UI state of its own.
#pragma once

#include "engine/lessons/mask_family.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_mask_family_page(const PageInputs& in, const MaskFamilyNumbers* numbers, Commands& out);

// Its exercise goes here (issue 70; lesson_page.hpp): which cells each mask blocks, and a masked
// row's weights.

}  // namespace attnlab::gui
