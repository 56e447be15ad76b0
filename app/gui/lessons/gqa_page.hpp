// The gqa lesson's page (gqa_page.cpp): multi-head, grouped and multi-query side by side, each query
// head's map under the K/V head it reads, and real models' KV caches. In presenter mode, where side by
// side would make the maps too small for the back of a room, one variant at a time, chosen above them. The cache table's height from the frame before is kept in ImGui's storage.
#pragma once

#include "engine/lessons/gqa.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

struct GqaUi {
  int variant = 1;  // the variant shown alone when they do not fit side by side (grouped-query first)
};

// Its heads' maps are listed (LessonMapsListed), variant by variant.
void draw_gqa_page(const PageInputs& in, const GqaNumbers* numbers, GqaUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the cache size of a configuration, and which
// K/V head a query head reads.

}  // namespace attnlab::gui
