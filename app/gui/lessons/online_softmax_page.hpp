// The online-softmax lesson's page (online_softmax_page.cpp): the logits one tile of keys at a time,
// each query row's running max, sum and partial output, the rescale where a tile raised the max, and
// at the last tile o ÷ ℓ beside the dense output. The walk-through's keys step between tiles.
#pragma once

#include "engine/lessons/online_softmax.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

struct OnlineSoftmaxUi {
  int step = 0;  // the tile of keys shown (0-based)
  // ATTNLAB_GUI_TILE=N opens the page at tile N (1-based), for screenshots and docs.
  OnlineSoftmaxUi();
};

void draw_online_softmax_page(const PageInputs& in, const OnlineSoftmaxNumbers* numbers, OnlineSoftmaxUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the running max, sum and rescale factor after
// tile k.

}  // namespace attnlab::gui
