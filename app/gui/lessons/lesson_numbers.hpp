// The numbers the lesson pages draw: the engine's numbers of the shown result's lesson view
// (engine/lessons/lesson_registry.hpp, compute_lesson), computed on the chosen backend once per result
// and kept in the lessons' UI state, so that no page's view computes them.
#pragma once

#include "engine/lessons/lesson_registry.hpp"
#include "gui/lessons/lessons_ui.hpp"
#include "gui/state/view_context.hpp"

#include <string>

namespace attnlab::gui {

// The shown result's lesson numbers, computed when the result is newer than `cache`'s; null when
// they cannot be computed (nothing computed yet, a scenario the view refuses), `error` saying why.
const LessonNumbers* lesson_numbers_any(LessonNumbersCache& cache, const ViewContext& ctx, std::string& error);

// The same as the view's own type `T` (its engine page's numbers); null, with `error`, for another
// view's.
template <class T>
const T* lesson_numbers(LessonsUi& lessons, const ViewContext& ctx, std::string& error) {
  const LessonNumbers* n = lesson_numbers_any(lessons.numbers, ctx, error);
  if (!n) return nullptr;
  if (const T* t = dynamic_cast<const T*>(n)) return t;
  error = "this scenario's lesson shows another view";
  return nullptr;
}

}  // namespace attnlab::gui
