// The geometry lesson's page (geometry_page.cpp): with d_k = d_v = 2, queries and keys as arrows and
// values as points to drag, each output a point inside the values' convex hull, live.
#pragma once

#include "engine/lessons/geometry.hpp"
#include "gui/lessons/lesson_page.hpp"
#include "gui/state/document.hpp"

#include <optional>

namespace attnlab::gui {

struct GeometryUi {
  // The point being dragged: a query, key or value (its matrix and row; none when nothing is).
  std::optional<Which> drag_kind;
  int drag_index = -1;
  // The plane's half-width, frozen while dragging so that the plane does not slide under the mouse.
  double plane_half = 0;
};

// A drag is one undoable edit of the document (an Edit merged while it lasts, then EndMerge).
void draw_geometry_page(const PageInputs& in, const GeometryNumbers* numbers, GeometryUi& ui, Commands& out);

// Its exercise (issue 70: the engine page's, in the Lesson view's Exercise tab): an output as a weighted average of the values,
// and why it stays inside their hull.

}  // namespace attnlab::gui
