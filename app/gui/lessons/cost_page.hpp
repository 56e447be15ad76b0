// The cost lesson's page (cost_page.cpp): the n × n scores per head as n grows, in entries and bytes,
// on a log bar chart against this machine's memory, and Measure's time on the active backend.
#pragma once

#include "engine/lessons/cost.hpp"
#include "gui/lessons/lesson_page.hpp"

#include <string>

namespace attnlab::gui {

struct CostUi {
  // Measure: one computation at n = 1024 on the active backend (0 ms: not measured), or why it failed.
  double measured_ms = 0;
  std::string measured_backend;
};

void draw_cost_page(const PageInputs& in, const CostNumbers* numbers, CostUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): the scores' bytes at an n, and how they grow
// when n doubles.

}  // namespace attnlab::gui
