// The attention-sinks lesson's page (attention_sinks_page.cpp): the sink head's map with its first
// column's share written as such, every head's share on the first token, and the three
// continuations side by side: the whole cache, a bounded cache that keeps the sinks, one that
// evicts them.
#pragma once

#include "engine/lessons/attention_sinks.hpp"
#include "gui/lessons/lesson_page.hpp"

namespace attnlab::gui {

void draw_attention_sinks_page(const PageInputs& in, const AttentionSinksNumbers* numbers, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): a row's weights
// with a sink key, and again once the sink is evicted.

}  // namespace attnlab::gui
